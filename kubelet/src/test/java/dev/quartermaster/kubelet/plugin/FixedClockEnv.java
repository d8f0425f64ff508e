package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A clock that moves only when told, readable from any thread (the gRPC calls run on the server's
 * virtual threads, where a DeterministicEnv refuses to be read). The plugin schedules nothing.
 */
final class FixedClockEnv implements Env {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public Instant now() {
    return START.plusNanos(nanos.get());
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    throw new UnsupportedOperationException("the kubelet plugin schedules nothing");
  }

  @Override
  public void execute(Runnable task) {
    throw new UnsupportedOperationException("the kubelet plugin runs nothing in the background");
  }

  @Override
  public RandomGenerator random() {
    return new SplittableRandom(641);
  }
}
