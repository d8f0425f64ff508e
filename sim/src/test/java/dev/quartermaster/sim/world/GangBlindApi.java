package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.Optional;

/**
 * The naive per-task allocator of issue 32, kept to show G1 sees it: the real allocator reading the
 * cluster through this view sees every workload without its gangs (its groups' and its own), so it
 * places each member alone as soon as it fits — the allocator as it was before gangs. Writes go to
 * the real API unchanged.
 */
final class GangBlindApi extends RewrittenReads {
  GangBlindApi(ApiClient api) {
    super(api);
  }

  @Override
  @SuppressWarnings("unchecked")
  <T extends ApiObject> T seen(T o) {
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
}
