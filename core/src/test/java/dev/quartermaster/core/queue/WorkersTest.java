package dev.quartermaster.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.BatchingEnv;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WorkersTest {

  private final DeterministicEnv env = new DeterministicEnv(1);
  private final WorkQueue<String> queue =
      new WorkQueue<>(
          env, new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000)));

  @Test
  void handlesEachKeyOnceInOrder() {
    List<String> handled = new ArrayList<>();
    queue.add("a"); // before the workers start
    queue.add("b");
    queue.add("a");
    Workers.start(
        env,
        queue,
        2,
        key -> {
          handled.add(key);
          return Result.done();
        });
    queue.add("c");
    queue.add("c"); // still waiting for a free worker: absorbed
    env.runUntilIdle();
    assertThat(handled).containsExactly("a", "b", "c");
    assertThat(queue.processingCount()).isZero();
  }

  @Test
  void requeueRetriesWithBackoffAndDoneForgetsIt() {
    List<Long> attemptsAtMillis = new ArrayList<>();
    Workers.start(
        env,
        queue,
        1,
        key -> {
          attemptsAtMillis.add(env.nanoTime() / 1_000_000);
          return attemptsAtMillis.size() < 4 ? Result.requeue() : Result.done();
        });
    queue.add("a");
    env.advance(Duration.ofSeconds(1));
    // 0, then +5, +10, +20 ms.
    assertThat(attemptsAtMillis).containsExactly(0L, 5L, 15L, 35L);
    assertThat(queue.numRequeues("a")).isZero();
  }

  @Test
  void aThrowingHandlerIsRetriedWithBackoff() {
    List<Long> attemptsAtMillis = new ArrayList<>();
    Workers<String> workers =
        Workers.start(
            env,
            queue,
            1,
            key -> {
              attemptsAtMillis.add(env.nanoTime() / 1_000_000);
              if (attemptsAtMillis.size() < 3) {
                throw new IllegalStateException("not yet");
              }
              return Result.done();
            });
    queue.add("a");
    env.advance(Duration.ofSeconds(1));
    assertThat(attemptsAtMillis).containsExactly(0L, 5L, 15L);
    assertThat(workers.failures()).isEqualTo(2);
  }

  @Test
  void requeueAfterComesBackAfterTheDelayWithBackoffForgotten() {
    List<Long> attemptsAtMillis = new ArrayList<>();
    queue.addRateLimited("a"); // leaves a retry count behind
    Workers.start(
        env,
        queue,
        1,
        key -> {
          attemptsAtMillis.add(env.nanoTime() / 1_000_000);
          return attemptsAtMillis.size() < 3
              ? Result.requeueAfter(Duration.ofMillis(300))
              : Result.done();
        });
    env.advance(Duration.ofSeconds(2));
    assertThat(attemptsAtMillis).containsExactly(5L, 305L, 605L);
    assertThat(queue.numRequeues("a")).isZero();
  }

  @Test
  void aKeyAddedWhileItsHandlerRunsIsHandledAgainAfterwards() {
    List<String> handled = new ArrayList<>();
    AtomicBoolean firstRun = new AtomicBoolean(true);
    Workers.start(
        env,
        queue,
        4,
        key -> {
          handled.add(key);
          if (firstRun.getAndSet(false)) {
            queue.add(key); // a change observed mid-reconcile
            // Another worker must not pick it up while this run is in flight.
            assertThat(queue.poll()).isEmpty();
          }
          return Result.done();
        });
    queue.add("a");
    env.runUntilIdle();
    assertThat(handled).containsExactly("a", "a");
  }

  @Test
  void neverMoreThanCountRunsInFlight() {
    Map<String, Integer> handledCount = new HashMap<>();
    AtomicReference<Workers<String>> holder = new AtomicReference<>();
    List<Integer> inFlightSeen = new ArrayList<>();
    holder.set(
        Workers.start(
            env,
            queue,
            3,
            key -> {
              inFlightSeen.add(holder.get().inFlight());
              handledCount.merge(key, 1, Integer::sum);
              return Result.done();
            }));
    for (int i = 0; i < 10; i++) {
      queue.add("k" + i);
    }
    // Three runs were dispatched at once, the rest wait for a free slot.
    assertThat(holder.get().inFlight()).isEqualTo(3);
    assertThat(queue.len()).isEqualTo(7);
    env.runUntilIdle();
    assertThat(inFlightSeen).allSatisfy(n -> assertThat(n).isBetween(1, 3));
    assertThat(handledCount).hasSize(10).allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
    assertThat(holder.get().inFlight()).isZero();
  }

  @Test
  void aTurnGoesOnToReadyKeysUpToTheEnvsTasksPerTurnAndNeverPastCount() {
    var batching = new BatchingEnv(4);
    var batchQueue =
        new WorkQueue<String>(
            batching, new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000)));
    for (int i = 0; i < 10; i++) {
      batchQueue.add("k" + i);
    }
    Map<String, Integer> handledCount = new HashMap<>();
    AtomicReference<Workers<String>> holder = new AtomicReference<>();
    List<Integer> inFlightSeen = new ArrayList<>();
    holder.set(
        Workers.start(
            batching,
            batchQueue,
            2,
            key -> {
              inFlightSeen.add(holder.get().inFlight());
              handledCount.merge(key, 1, Integer::sum);
              return Result.done();
            }));
    batching.inner.runUntilIdle();
    assertThat(handledCount).hasSize(10).allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
    assertThat(inFlightSeen).allSatisfy(n -> assertThat(n).isBetween(1, 2));
    // Ten keys in turns of up to four: a few threads started, not one per key.
    assertThat(batching.turns).isBetween(3, 5);
    assertThat(holder.get().inFlight()).isZero();
    assertThat(batchQueue.processingCount()).isZero();
  }

  @Test
  void stopStartsNothingNewAndIdleCallbackFires() {
    List<String> handled = new ArrayList<>();
    Workers<String> workers =
        Workers.start(
            env,
            queue,
            1,
            key -> {
              handled.add(key);
              return Result.done();
            });
    queue.add("a");
    queue.add("b");
    List<String> idle = new ArrayList<>();
    workers.whenIdle(() -> idle.add("idle"));
    assertThat(idle).isEmpty();
    workers.stop(); // "a" is already in flight
    env.runUntilIdle();
    assertThat(handled).containsExactly("a");
    assertThat(idle).containsExactly("idle");
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void whenIdleFiresAfterTheQueueDrains() {
    List<String> events = new ArrayList<>();
    Workers<String> workers =
        Workers.start(
            env,
            queue,
            2,
            key -> {
              events.add(key);
              return Result.done();
            });
    workers.whenIdle(() -> events.add("idle-at-start"));
    queue.add("a");
    queue.add("b");
    queue.add("c");
    workers.whenIdle(() -> events.add("idle"));
    env.runUntilIdle();
    assertThat(events).containsExactly("idle-at-start", "a", "b", "c", "idle");
  }
}
