package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.Optional;

/**
 * A naive reader's view of the cluster: every object it reads (get, list, watch) as {@link #seen}
 * rewrites it, so that a real controller behind it decides blind to what was taken out. Writes go
 * to the real API unchanged.
 */
abstract class RewrittenReads extends ForwardingApiClient {
  RewrittenReads(ApiClient api) {
    super(api);
  }

  /** {@code o} as the naive reader sees it; the same kind of object. */
  abstract <T extends ApiObject> T seen(T o);

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return api.get(kind, name).map(this::seen);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    var list = api.list(kind, selector);
    return new ObjectList<>(list.items().stream().map(this::seen).toList(), list.revision());
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    return api.watch(
        kind,
        afterRevision,
        scope,
        new WatchHandler<T>() {
          @Override
          public void onEvent(WatchEvent<T> event) {
            handler.onEvent(new WatchEvent<>(event.type(), seen(event.object())));
          }

          @Override
          public void onGone(long compactedRevision) {
            handler.onGone(compactedRevision);
          }

          @Override
          public void onCaughtUp(long revision) {
            handler.onCaughtUp(revision);
          }

          @Override
          public void onClosed(String reason) {
            handler.onClosed(reason);
          }
        });
  }
}
