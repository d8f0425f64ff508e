package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Workload;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Gangs by state as their workloads' statuses say ({@code qm_gangs{state}}), every state present,
 * zero included: each gang {@link WorkloadGangs} finds in a spec, a group's or the workload's own,
 * counts once. A gang whose status has no line yet (the controller has not written it) counts as
 * waiting: it holds nothing.
 */
final class GangCensus {
  private GangCensus() {}

  static Map<GangState, Long> of(Collection<Workload> workloads) {
    var counts = new EnumMap<GangState, Long>(GangState.class);
    for (var state : GangState.values()) {
      counts.put(state, 0L);
    }
    for (var w : workloads) {
      if (w.metadata().isDeleting()) {
        continue;
      }
      var lines = WorkloadGangs.statuses(w.status());
      for (var gang : WorkloadGangs.of(w.spec())) {
        var state =
            Optional.ofNullable(lines.get(gang.name()))
                .map(g -> g.state())
                .orElse(GangState.Waiting);
        counts.merge(state, 1L, Long::sum);
      }
    }
    return counts;
  }
}
