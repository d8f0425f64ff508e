package dev.quartermaster.sim;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * I4 on the true store state, checked at every commit: a commit that creates a task must not leave
 * its group with more live tasks (existing, not being deleted, not finished) than the group's
 * replicas in the store at that revision. (A scale-down commit itself leaves more live tasks than
 * replicas until they are deleted; that is not a controller's doing, so only creates are judged.)
 * It also counts creates per name, to show each name is created once per incarnation.
 */
final class GroupBoundChecker implements CommitListener {
  private final Map<String, Task> tasks = new HashMap<>();
  private final Map<String, Workload> workloads = new HashMap<>();
  private final Map<String, Integer> createsByName = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private int maxLive;

  @Override
  public void committed(long revision, List<StoreEvent> changes) {
    var grown = new TreeSet<String>();
    for (var e : changes) {
      var key = e.kv().key();
      if (key.startsWith("/registry/tasks/")) {
        var name = key.substring("/registry/tasks/".length());
        if (e.type() == StoreEvent.Type.DELETE) {
          tasks.remove(name);
          continue;
        }
        var t = ObjectCodec.fromJson(e.kv().value(), Kinds.TASK);
        if (e.previous().isEmpty()) {
          createsByName.merge(name, 1, Integer::sum);
          grown.add(groupOf(t));
        }
        tasks.put(name, t);
      } else if (key.startsWith("/registry/workloads/")) {
        var name = key.substring("/registry/workloads/".length());
        if (e.type() == StoreEvent.Type.DELETE) {
          workloads.remove(name);
        } else {
          workloads.put(name, ObjectCodec.fromJson(e.kv().value(), Kinds.WORKLOAD));
        }
      }
    }
    for (var group : grown) {
      int live = live(group);
      maxLive = Math.max(maxLive, live);
      int replicas = replicas(group);
      if (live > replicas) {
        violations.add(
            "revision "
                + revision
                + ": group "
                + group
                + " has "
                + live
                + " live tasks but "
                + replicas
                + " replicas right after a create");
      }
    }
  }

  int live(String group) {
    return (int)
        tasks.values().stream()
            .filter(
                t ->
                    groupOf(t).equals(group)
                        && !t.metadata().isDeleting()
                        && !t.status().phase().isFinished())
            .count();
  }

  int taskCount() {
    return tasks.size();
  }

  private int replicas(String group) {
    int slash = group.indexOf('/');
    var w = workloads.get(group.substring(0, slash));
    if (w == null) {
      return 0;
    }
    return w.spec().groups().stream()
        .filter(g -> g.name().equals(group.substring(slash + 1)))
        .mapToInt(g -> g.replicas())
        .findFirst()
        .orElse(0);
  }

  private static String groupOf(Task t) {
    var l = t.metadata().labels();
    return l.getOrDefault(Labels.WORKLOAD, "?") + "/" + l.getOrDefault(Labels.GROUP, "?");
  }

  List<String> violations() {
    return violations;
  }

  /**
   * Creates per task name over the run (a name may come back after its previous task was deleted).
   */
  Map<String, Integer> createsByName() {
    return createsByName;
  }

  int maxLive() {
    return maxLive;
  }
}
