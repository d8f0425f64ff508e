package dev.quartermaster.sim;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code reservedFor} on the true store state, at every commit: when a task becomes Scheduled,
 * every claim it names is already reserved for it (so the agent never runs a task its claims do not
 * name). Reservations of finished or gone tasks are reported by {@link #stale}.
 */
final class ReservationChecker implements CommitListener {
  private final Map<String, Task> tasks = new HashMap<>();
  private final Map<String, ResourceClaim> claims = new HashMap<>();
  private final List<String> violations = new ArrayList<>();

  @Override
  public void committed(long revision, List<StoreEvent> changes) {
    for (var e : changes) {
      var key = e.kv().key();
      if (key.startsWith("/registry/resourceclaims/")) {
        var name = key.substring("/registry/resourceclaims/".length());
        if (e.type() == StoreEvent.Type.DELETE) {
          claims.remove(name);
        } else {
          claims.put(name, ObjectCodec.fromJson(e.kv().value(), Kinds.RESOURCE_CLAIM));
        }
      }
    }
    for (var e : changes) {
      var key = e.kv().key();
      if (!key.startsWith("/registry/tasks/")) {
        continue;
      }
      var name = key.substring("/registry/tasks/".length());
      if (e.type() == StoreEvent.Type.DELETE) {
        tasks.remove(name);
        continue;
      }
      var t = ObjectCodec.fromJson(e.kv().value(), Kinds.TASK);
      var before = tasks.put(name, t);
      boolean nowScheduled =
          t.status().phase() == TaskPhase.Scheduled
              && (before == null || before.status().phase() != TaskPhase.Scheduled);
      if (nowScheduled) {
        for (var claim : t.spec().claims()) {
          var c = claims.get(claim);
          if (c == null || !c.status().reservedFor().contains(name)) {
            violations.add(
                "revision "
                    + revision
                    + ": task "
                    + name
                    + " Scheduled but claim "
                    + claim
                    + " is not reserved for it");
          }
        }
      }
    }
  }

  List<String> violations() {
    return violations;
  }

  /** Reservations naming a task that is gone or finished. */
  List<String> stale() {
    var out = new ArrayList<String>();
    claims.forEach(
        (name, c) ->
            c.status()
                .reservedFor()
                .forEach(
                    t -> {
                      var task = tasks.get(t);
                      if (task == null || task.status().phase().isFinished()) {
                        out.add("claim " + name + " reserved for " + t);
                      }
                    }));
    return out;
  }
}
