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

/**
 * I4's other half on the true store state, at every commit: no unfinished task that the newest spec
 * still wants (its ordinal below its group's replicas in the store at that revision, owned by the
 * workload as it is now) is deleted. A controller that scales down from a stale spec does exactly
 * that. Finished tasks (restarts) and tasks of a deleting or earlier workload are not judged.
 */
final class WantedTaskChecker implements CommitListener {
  private final Map<String, Task> tasks = new HashMap<>();
  private final Map<String, Workload> workloads = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private int wantedDeletes;

  @Override
  public void committed(long revision, List<StoreEvent> changes) {
    for (var e : changes) {
      var key = e.kv().key();
      if (key.startsWith("/registry/workloads/")) {
        var name = key.substring("/registry/workloads/".length());
        if (e.type() == StoreEvent.Type.DELETE) {
          workloads.remove(name);
        } else {
          workloads.put(name, ObjectCodec.fromJson(e.kv().value(), Kinds.WORKLOAD));
        }
      }
    }
    for (var e : changes) {
      var key = e.kv().key();
      if (!key.startsWith("/registry/tasks/")) {
        continue;
      }
      var name = key.substring("/registry/tasks/".length());
      var before = tasks.get(name);
      if (e.type() == StoreEvent.Type.DELETE) {
        tasks.remove(name);
        if (before != null && !before.metadata().isDeleting()) {
          judge(revision, before);
        }
        continue;
      }
      var t = ObjectCodec.fromJson(e.kv().value(), Kinds.TASK);
      tasks.put(name, t);
      if (t.metadata().isDeleting() && (before == null || !before.metadata().isDeleting())) {
        judge(revision, t);
      }
    }
  }

  private void judge(long revision, Task t) {
    if (t.status().phase().isFinished()) {
      return;
    }
    var l = t.metadata().labels();
    var w = workloads.get(l.getOrDefault(Labels.WORKLOAD, ""));
    if (w == null
        || w.metadata().isDeleting()
        || !t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false)) {
      return;
    }
    int ordinal = Integer.parseInt(l.getOrDefault(Labels.ORDINAL, "-1"));
    int replicas =
        w.spec().groups().stream()
            .filter(g -> g.name().equals(l.get(Labels.GROUP)))
            .mapToInt(g -> g.replicas())
            .findFirst()
            .orElse(0);
    if (ordinal >= 0 && ordinal < replicas) {
      wantedDeletes++;
      violations.add(
          "revision "
              + revision
              + ": deleted "
              + t.status().phase()
              + " task "
              + t.metadata().name()
              + " that the newest spec wants (replicas "
              + replicas
              + ")");
    }
  }

  List<String> violations() {
    return violations;
  }

  /** Unfinished tasks the newest spec wanted that were deleted. */
  int wantedDeletes() {
    return wantedDeletes;
  }
}
