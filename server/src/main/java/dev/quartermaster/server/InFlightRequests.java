package dev.quartermaster.server;

import dev.quartermaster.core.env.Env;
import java.time.Duration;

/**
 * Counts requests being handled, so that stopping can wait for them. The JDK server's own stop
 * grace also counts idle keep-alive connections a client happens to close at that moment, and then
 * waits out the whole grace; counting our own handlers avoids that.
 */
final class InFlightRequests {
  private final Env env;
  private int count;

  InFlightRequests(Env env) {
    this.env = env;
  }

  synchronized void enter() {
    count++;
  }

  synchronized void exit() {
    count--;
    if (count == 0) {
      notifyAll();
    }
  }

  /** Waits until no request is in flight or {@code grace} has passed; true when idle. */
  synchronized boolean awaitIdle(Duration grace) throws InterruptedException {
    var deadline = env.nanoTime() + grace.toNanos();
    while (count > 0) {
      var left = deadline - env.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }
}
