package dev.quartermaster.api.queue;

import dev.quartermaster.api.workload.Workload;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;

/**
 * The order a queue's pending workloads are taken in: higher priority first, then older, then by
 * name (so two admitters, and {@code describe}, agree on who is ahead).
 */
public final class QueueOrder {
  private QueueOrder() {}

  /** The priority of {@code w} given the classes' values: 0 when it names none. */
  public static int priorityOf(Workload w, Map<String, Integer> classes) {
    return w.spec().priority().map(p -> classes.getOrDefault(p, 0)).orElse(0);
  }

  public static Comparator<Workload> of(Map<String, Integer> classes) {
    return Comparator.comparingInt((Workload w) -> -priorityOf(w, classes))
        .thenComparing(w -> w.metadata().createdAt().orElse(Instant.EPOCH))
        .thenComparing(w -> w.metadata().name());
  }
}
