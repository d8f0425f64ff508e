package dev.quartermaster.core.queue;

import java.time.Duration;
import java.util.Objects;

/** What a handler asks the queue to do with the key it just handled. */
public sealed interface Result {

  /** Handled: forget the key's backoff. */
  record Done() implements Result {}

  /** Try again after the key's rate-limited backoff (also what a thrown exception means). */
  record Requeue() implements Result {}

  /** Handled for now, look again after {@code delay}: forgets the backoff, then adds later. */
  record RequeueAfter(Duration delay) implements Result {
    public RequeueAfter {
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("negative delay: " + delay);
      }
    }
  }

  /** {@link Done}. */
  static Result done() {
    return new Done();
  }

  /** {@link Requeue}. */
  static Result requeue() {
    return new Requeue();
  }

  /** {@link RequeueAfter}. */
  static Result requeueAfter(Duration delay) {
    return new RequeueAfter(delay);
  }
}
