package dev.quartermaster.sim.world;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A scenario's whole cluster with every promise checked at every step it runs, and the reads the
 * scenario tests make of it. Each scenario extends it with its own setup and questions.
 */
abstract class CheckedWorld {
  final WholeCluster world;
  final Promises promises;

  /** Every promise broken so far, in the order seen. */
  final List<String> violations = new ArrayList<>();

  CheckedWorld(WholeCluster world) {
    this.world = world;
    this.promises = new Promises(world);
  }

  /** Runs until {@code done}, a broken promise, or {@code limit}; whether done with none broken. */
  boolean run(BooleanSupplier done, Duration limit) {
    return world
            .env()
            .runUntil(
                () -> {
                  violations.addAll(promises.check());
                  return !violations.isEmpty() || done.getAsBoolean();
                },
                limit)
        && violations.isEmpty();
  }

  /** The task's phase as stored; {@code Pending} while it does not exist yet. */
  TaskPhase phase(String task) {
    return world.api().get(Kinds.TASK, task).map(t -> t.status().phase()).orElse(TaskPhase.Pending);
  }

  List<Task> tasks() {
    return world.api().list(Kinds.TASK).items();
  }

  /** The distinct messages of the events recorded with {@code reason}, oldest first. */
  List<String> events(String reason) {
    return world.api().list(Kinds.EVENT).items().stream()
        .filter(e -> e.spec().reason().equals(reason))
        .map(e -> e.spec().message())
        .distinct()
        .toList();
  }
}
