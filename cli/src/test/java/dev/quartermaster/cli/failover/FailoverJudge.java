package dev.quartermaster.cli.failover;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.sim.world.ExclusiveUse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The promises the failover test holds the cluster to, judged over every change of claims, tasks
 * and workloads in the store's revision order (the whole history, read back from etcd):
 *
 * <ul>
 *   <li>I1: at no revision does what live claims are allocated over-consume a counter of a node (no
 *       device in two allocations), judged by the simulation's one judge ({@link ExclusiveUse});
 *   <li>I4: no task is created while its group already has as many live tasks as the workload's
 *       replicas at that revision.
 * </ul>
 */
final class FailoverJudge {
  private final Map<String, ResourceClaim> claims = new HashMap<>();
  private final Map<String, DeviceSlice> slices = new HashMap<>();
  private final Map<String, Task> tasks = new HashMap<>();
  private final Map<String, Workload> workloads = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private long changes;

  void changed(long revision, ApiObject o, boolean deleted) {
    changes++;
    var name = o.metadata().name();
    switch (o) {
      case ResourceClaim c -> {
        put(claims, name, c, deleted);
        if (!deleted) {
          exclusive(revision);
        }
      }
      case Task t -> {
        var before = tasks.get(name);
        put(tasks, name, t, deleted);
        if (!deleted && (before == null || !before.metadata().uid().equals(t.metadata().uid()))) {
          bounded(revision, t);
        }
      }
      case Workload w -> put(workloads, name, w, deleted);
      case DeviceSlice s -> put(slices, name, s, deleted);
      default -> {}
    }
  }

  private static <T> void put(Map<String, T> into, String name, T o, boolean deleted) {
    if (deleted) {
      into.remove(name);
    } else {
      into.put(name, o);
    }
  }

  private void exclusive(long revision) {
    ExclusiveUse.violations(claims.values(), ExclusiveUse.bySlices(slices.values()))
        .forEach(v -> violations.add("I1 at revision " + revision + ": " + v));
  }

  private void bounded(long revision, Task created) {
    var labels = created.metadata().labels();
    var workload = workloads.get(labels.getOrDefault(Labels.WORKLOAD, ""));
    if (workload == null) {
      return;
    }
    var group = labels.getOrDefault(Labels.GROUP, "");
    int want =
        workload.spec().groups().stream()
            .filter(g -> g.name().equals(group))
            .mapToInt(g -> g.replicas())
            .sum();
    long live =
        tasks.values().stream()
            .filter(t -> group.equals(t.metadata().labels().get(Labels.GROUP)))
            .filter(
                t -> workload.metadata().name().equals(t.metadata().labels().get(Labels.WORKLOAD)))
            .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished())
            .count();
    if (live > want) {
      violations.add(
          "I4 at revision "
              + revision
              + ": creating "
              + created.metadata().name()
              + " left "
              + live
              + " live tasks in group "
              + group
              + " for "
              + want
              + " replicas");
    }
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  long changes() {
    return changes;
  }
}
