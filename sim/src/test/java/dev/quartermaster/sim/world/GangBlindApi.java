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
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.Optional;

/**
 * The naive per-task allocator of issue 32, kept to show G1 sees it: the real allocator reading the
 * cluster through this view sees every workload without its gangs (its groups' and its own), so it
 * places each member alone as soon as it fits — the allocator as it was before gangs. Writes go to
 * the real API unchanged.
 */
final class GangBlindApi extends ForwardingApiClient {
  GangBlindApi(ApiClient api) {
    super(api);
  }

  @SuppressWarnings("unchecked")
  private static <T extends ApiObject> T blind(T o) {
    if (!(o instanceof Workload w)) {
      return o;
    }
    var groups =
        w.spec().groups().stream()
            .map(
                g ->
                    new WorkerGroup(
                        g.name(),
                        g.replicas(),
                        g.template(),
                        g.claimTemplates(),
                        g.restartPolicy(),
                        g.volumeClaimTemplates(),
                        g.volumeRetention(),
                        Optional.empty()))
            .toList();
    return (T) w.withSpec(new WorkloadSpec(groups, w.spec().computeDomain()));
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return api.get(kind, name).map(GangBlindApi::blind);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    var list = api.list(kind, selector);
    return new ObjectList<>(
        list.items().stream().map(GangBlindApi::blind).toList(), list.revision());
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
            handler.onEvent(new WatchEvent<>(event.type(), blind(event.object())));
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
