package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.workload.Workload;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/**
 * Gangs by state as their workloads' statuses say ({@code qm_gangs{state}}), every state present,
 * zero included. A group declared a gang whose status has no gang line yet (the controller has not
 * written it) counts as waiting: it holds nothing.
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
      for (var group : w.spec().groups()) {
        if (group.gang().isEmpty()) {
          continue;
        }
        var state =
            w.status().groups().stream()
                .filter(g -> g.name().equals(group.name()))
                .findFirst()
                .flatMap(g -> g.gang())
                .map(g -> g.state())
                .orElse(GangState.Waiting);
        counts.merge(state, 1L, Long::sum);
      }
    }
    return counts;
  }
}
