package dev.quartermaster.control.workload;

import java.time.Duration;
import java.util.Optional;

/** When a workload is looked at again: the earliest of what its pass's steps ask. */
final class Recheck {
  private Recheck() {}

  static Optional<Duration> earliest(Optional<Duration> a, Duration b) {
    return Optional.of(a.filter(x -> x.compareTo(b) < 0).orElse(b));
  }
}
