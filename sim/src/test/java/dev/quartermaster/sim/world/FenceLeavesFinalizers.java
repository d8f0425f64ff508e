package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.ForwardingApiClient;

/**
 * The fence as it was before issue 44 (item 2): it cleared a fenced node's allocations and prepare
 * states but left the node's agent finalizer on its claims, which only that (dead) agent takes off,
 * so a deleted claim stayed, and the replacement of its task waited for it for ever. The real
 * controllers reach the cluster through this view, which drops each update that takes an agent's
 * finalizer off a claim (no controller did before). Everything else goes through unchanged, fenced
 * as the controllers' writes are.
 */
final class FenceLeavesFinalizers extends ForwardingApiClient implements FencingClient {
  FenceLeavesFinalizers(ApiClient api) {
    super(api);
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    if (object instanceof ResourceClaim next) {
      var stored = api.get(Kinds.RESOURCE_CLAIM, next.metadata().name());
      boolean dropsAgentFinalizer =
          stored.isPresent()
              && stored.get().metadata().finalizers().stream()
                  .anyMatch(
                      f ->
                          AgentFinalizer.parse(f).isPresent()
                              && !next.metadata().finalizers().contains(f));
      if (dropsAgentFinalizer) {
        return object;
      }
    }
    return api.update(object);
  }

  @Override
  public ApiClient fencedBy(String key, long revision) {
    return new FenceLeavesFinalizers(((FencingClient) api).fencedBy(key, revision));
  }

  @Override
  public ApiClient unfencedBy(String key, long revision) {
    return new FenceLeavesFinalizers(((FencingClient) api).unfencedBy(key, revision));
  }
}
