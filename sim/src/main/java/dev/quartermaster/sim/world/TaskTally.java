package dev.quartermaster.sim.world;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.sim.CommitListener;
import dev.quartermaster.store.StoreEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many tasks were created, ran and finished, counted as their writes commit: a day's workloads
 * are deleted once over (their TTL), so the store at the end holds few of them. Each task
 * incarnation (uid) counts once in each tally. It reads the task from {@link StoreView}, which
 * decoded it just before (it listens first), so nothing is decoded twice.
 */
final class TaskTally implements CommitListener {
  private static final String PREFIX = "/registry/" + Kinds.TASK.plural() + "/";

  private final StoreView view;

  /** Live task uids → the furthest they got: 0 created, 1 ran, 2 finished. */
  private final Map<String, Integer> reached = new HashMap<>();

  /** Task names → their uid, to forget an incarnation when its task is deleted. */
  private final Map<String, String> uids = new HashMap<>();

  private long created;
  private long ran;
  private long finished;

  TaskTally(StoreView view) {
    this.view = view;
  }

  @Override
  public void committed(long revision, List<StoreEvent> changes) {
    for (var e : changes) {
      var key = e.kv().key();
      if (!key.startsWith(PREFIX)) {
        continue;
      }
      var name = key.substring(PREFIX.length());
      if (e.type() == StoreEvent.Type.DELETE) {
        var uid = uids.remove(name);
        if (uid != null) {
          reached.remove(uid);
        }
        continue;
      }
      view.task(name).ifPresent(t -> seen(name, t.metadata().uid(), t.status().phase()));
    }
  }

  private void seen(String name, String uid, TaskPhase phase) {
    var before = uids.put(name, uid);
    if (before != null && !before.equals(uid)) {
      reached.remove(before);
    }
    int was = reached.getOrDefault(uid, -1);
    if (was < 0) {
      created++;
    }
    int now = phase.isFinished() ? 2 : phase == TaskPhase.Running ? 1 : 0;
    // A task may finish without being seen Running between two commits (a start that failed):
    // it finished, but it did not run.
    if (phase == TaskPhase.Running && was < 1) {
      ran++;
    }
    if (now == 2 && was < 2) {
      finished++;
    }
    reached.put(uid, Math.max(was, now));
  }

  long created() {
    return created;
  }

  long ran() {
    return ran;
  }

  long finished() {
    return finished;
  }
}
