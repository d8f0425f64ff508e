package dev.quartermaster.sim.world;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Labels;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@code qm sim --seed S --watch NAME}: after each step, every change to the tasks of workload
 * {@code NAME} and to its admission, one line each, so a violation is read as a story rather than
 * guessed from the last events.
 */
final class WorkloadWatch {
  private final String workload;
  private final Consumer<String> out;
  private Map<String, String> last = Map.of();

  WorkloadWatch(String workload, Consumer<String> out) {
    this.workload = workload;
    this.out = out;
  }

  /** Prints what changed since the last look, each line prefixed with {@code when}. */
  void look(WholeCluster world, String when) {
    var now = new TreeMap<String, String>();
    for (var t : world.api().list(Kinds.TASK).items()) {
      if (workload.equals(t.metadata().labels().get(Labels.WORKLOAD))) {
        now.put("task " + t.metadata().name(), describe(t));
      }
    }
    for (var l : world.api().list(Kinds.QUOTA_LEDGER).items()) {
      var a = l.spec().admitted().get(workload);
      if (a != null) {
        now.put("admitted in " + l.metadata().name(), a.toString());
      }
      var r = l.spec().requeued().get(workload);
      if (r != null) {
        now.put("requeued in " + l.metadata().name(), r.toString());
      }
    }
    world
        .api()
        .get(Kinds.WORKLOAD, workload)
        .ifPresent(
            w -> {
              now.put(
                  "spec replicas", w.spec().groups().toString().replaceAll("template=[^]]*]", ""));
              now.put("status", w.status().groups().toString());
            });
    now.forEach(
        (k, v) -> {
          if (!v.equals(last.get(k))) {
            out.accept(when + " " + k + ": " + v);
          }
        });
    last.keySet().stream()
        .filter(k -> !now.containsKey(k))
        .forEach(k -> out.accept(when + " " + k + ": gone"));
    last = now;
  }

  private static String describe(Task t) {
    return t.metadata().uid().substring(0, Math.min(8, t.metadata().uid().length()))
        + " "
        + t.status().phase()
        + (t.metadata().isDeleting() ? " deleting" : "")
        + " node="
        + t.spec().node().orElse("-")
        + " labels="
        + t.metadata().labels();
  }
}
