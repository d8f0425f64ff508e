package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.sim.ForwardingApiClient;

/**
 * The naive variant "fencing tokens off": what the controllers write through records each term as
 * fenced writes do, but nothing compares it, so a write decided before the term ended lands after
 * (TERM catches it). As a control view ({@code Variant.controlView}, the partitions bench's {@code
 * no-fencing} server), over a client that can fence.
 */
public final class UnfencedWrites extends ForwardingApiClient implements FencingClient {
  private final FencingClient beneath;

  public UnfencedWrites(ApiClient beneath) {
    super(beneath);
    if (!(beneath instanceof FencingClient f)) {
      throw new IllegalArgumentException("the client beneath cannot record a term");
    }
    this.beneath = f;
  }

  @Override
  public ApiClient fencedBy(String key, long revision) {
    return beneath.unfencedBy(key, revision);
  }

  @Override
  public ApiClient unfencedBy(String key, long revision) {
    return beneath.unfencedBy(key, revision);
  }
}
