package dev.quartermaster.core.serial;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.serial.CallRecorder.Behaviour;
import dev.quartermaster.core.serial.CallRecorder.Running;
import dev.quartermaster.core.serial.CallRecorder.Submitted;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A random, replayable workload for any {@link Serializer}: submits on a few keys (some from within
 * the continuation of a completing call), calls that end in any order and any way, env tasks run
 * one at a time in between, and optionally cancellations; then everything is drained. Every draw
 * comes from the env's seed.
 */
public final class SerializerWorkload {

  /** What the storage system saw; {@link #fifoAndExclusive} is the contract's check. */
  public record Report(
      long seed,
      int submitted,
      int started,
      int abandoned,
      int maxInFlightPerKey,
      int outOfOrderStarts,
      int maxOvertaken,
      int neverStarted,
      List<String> violations) {

    /** At most one call per key in flight, FIFO per key, all started, none started if cancelled. */
    public boolean fifoAndExclusive() {
      return maxInFlightPerKey <= 1
          && outOfOrderStarts == 0
          && neverStarted == 0
          && violations.isEmpty();
    }
  }

  private final Serializer<String> serializer;
  private final DeterministicEnv env;
  private final RandomGenerator random;
  private final CallRecorder<String> recorder = new CallRecorder<>();
  private final List<Submitted<String>> cancellable = new ArrayList<>();
  private final int keys;

  private SerializerWorkload(Serializer<String> serializer, DeterministicEnv env, int keys) {
    this.serializer = serializer;
    this.env = env;
    this.random = env.random();
    this.keys = keys;
  }

  /**
   * Runs {@code steps} random steps over {@code keys} keys, cancelling waiters when {@code
   * cancels}, then drains: ends every call in flight and runs every env task.
   */
  public static Report run(
      Serializer<String> serializer, DeterministicEnv env, int keys, int steps, boolean cancels) {
    SerializerWorkload workload = new SerializerWorkload(serializer, env, keys);
    for (int step = 0; step < steps; step++) {
      workload.step(cancels);
    }
    workload.drain();
    return workload.report(env.seed());
  }

  private void step(boolean cancels) {
    int roll = random.nextInt(100);
    if (roll < 40) {
      submit("k" + random.nextInt(keys), random.nextInt(100) < 20);
    } else if (roll < 65) {
      endRandomCall();
    } else if (roll < 72 && cancels && !cancellable.isEmpty()) {
      recorder.cancel(cancellable.remove(random.nextInt(cancellable.size())));
    } else {
      env.runNext();
    }
  }

  private void submit(String key, boolean chained) {
    int roll = random.nextInt(100);
    Behaviour behaviour =
        roll < 85
            ? Behaviour.PENDING
            : roll < 90 ? Behaviour.THROWS : roll < 95 ? Behaviour.FAILS : Behaviour.SUCCEEDS;
    Submitted<String> call = recorder.submit(serializer, key, behaviour);
    cancellable.add(call);
    if (chained) {
      // A submit made from within the completion of a call, on the completing thread.
      call.result().whenComplete((value, failure) -> submit(key, false));
    }
  }

  private void endRandomCall() {
    List<Running<String>> running = recorder.running();
    if (running.isEmpty()) {
      return;
    }
    Running<String> call = running.get(random.nextInt(running.size()));
    if (random.nextInt(100) < 10) {
      recorder.fail(call);
    } else {
      recorder.succeed(call);
    }
  }

  private void drain() {
    for (int round = 0; round < 1_000_000; round++) {
      env.runUntilIdle();
      if (recorder.running().isEmpty()) {
        return;
      }
      endRandomCall();
    }
    throw new IllegalStateException("the workload did not drain (seed " + env.seed() + ")");
  }

  private Report report(long seed) {
    int submitted = recorder.submittedCount();
    int started = recorder.startedCount();
    return new Report(
        seed,
        submitted,
        started,
        recorder.abandonedCount(),
        recorder.maxInFlightPerKey(),
        recorder.outOfOrderStarts(),
        recorder.maxOvertaken(),
        submitted - started - recorder.abandonedCount(),
        recorder.violations());
  }
}
