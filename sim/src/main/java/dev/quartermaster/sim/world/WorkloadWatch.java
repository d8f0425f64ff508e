package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Labels;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@code qm sim --seed S --watch NAME}: after each step, every change to the tasks of workload
 * {@code NAME} (their status reasons, their claims and the slices of the nodes those are allocated
 * on) and to its admission, one line each, so a violation is read as a story rather than guessed
 * from the last events.
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
        for (var c : t.spec().claims()) {
          world
              .api()
              .get(Kinds.RESOURCE_CLAIM, c)
              .ifPresent(
                  x -> {
                    now.put("claim " + c, describe(x));
                    x.status()
                        .allocation()
                        .flatMap(a -> world.api().get(Kinds.DEVICE_SLICE, a.node()))
                        .ifPresent(d -> now.put("slice " + d.metadata().name(), describe(d)));
                  });
        }
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
        + (t.status().reason().isEmpty()
            ? ""
            : " (" + t.status().reason() + ": " + t.status().message() + ")")
        + " labels="
        + t.metadata().labels();
  }

  /** A node's published devices, each with its health. */
  private static String describe(DeviceSlice d) {
    return d.spec().devices().stream().map(x -> x.name() + "=" + x.health()).toList().toString();
  }

  /** A claim's uid, where it is allocated, and its prepare state per node. */
  private static String describe(ResourceClaim c) {
    var s = c.status();
    return c.metadata().uid().substring(0, Math.min(8, c.metadata().uid().length()))
        + (c.metadata().isDeleting() ? " deleting" : "")
        + " allocated="
        + s.allocation().map(a -> a.node() + a.devices()).orElse("-")
        + " reservedFor="
        + s.reservedFor()
        + " prepare="
        + s.prepare();
  }
}
