package dev.quartermaster.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.SystemEnv;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Real threads: many virtual-thread workers and producers racing on few keys. */
class WorkQueueConcurrencyTest {

  private static final int KEYS = 40;
  private static final int PRODUCERS = 8;
  private static final int ADDS_PER_PRODUCER = 3000;
  private static final int WORKERS = 16;

  @Test
  void oneKeyNeverRunsTwiceAtOnceAndEveryAddIsFollowedByARun() throws Exception {
    SystemEnv env = new SystemEnv();
    WorkQueue<Integer> queue = WorkQueue.create(env);
    AtomicLong clock = new AtomicLong(); // a logical clock ordering adds and runs
    ConcurrentHashMap<Integer, AtomicInteger> running = new ConcurrentHashMap<>();
    ConcurrentHashMap<Integer, Long> lastAdd = new ConcurrentHashMap<>();
    ConcurrentHashMap<Integer, Long> lastRunStart = new ConcurrentHashMap<>();
    AtomicInteger maxPerKey = new AtomicInteger();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    AtomicInteger handled = new AtomicInteger();

    Workers<Integer> workers =
        Workers.start(
            env,
            queue,
            WORKERS,
            key -> {
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              int concurrent =
                  running.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
              maxPerKey.accumulateAndGet(concurrent, Math::max);
              lastRunStart.merge(key, clock.incrementAndGet(), Math::max);
              Thread.yield(); // widen the window for a second worker to sneak in
              running.get(key).decrementAndGet();
              inFlight.decrementAndGet();
              handled.incrementAndGet();
              return Result.done();
            });

    CountDownLatch producersDone = new CountDownLatch(PRODUCERS);
    for (int p = 0; p < PRODUCERS; p++) {
      env.execute(
          () -> {
            for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
              int key = env.random().nextInt(KEYS);
              lastAdd.merge(key, clock.incrementAndGet(), Math::max);
              queue.add(key);
              if (i % 64 == 0) {
                Thread.yield();
              }
            }
            producersDone.countDown();
          });
    }
    assertThat(producersDone.await(60, TimeUnit.SECONDS)).isTrue();
    CountDownLatch idle = new CountDownLatch(1);
    workers.whenIdle(idle::countDown);
    assertThat(idle.await(60, TimeUnit.SECONDS)).isTrue();

    assertThat(maxPerKey).hasValue(1);
    assertThat(maxInFlight.get()).isBetween(1, WORKERS);
    assertThat(handled.get()).isPositive().isLessThanOrEqualTo(PRODUCERS * ADDS_PER_PRODUCER);
    assertThat(lastAdd).isNotEmpty();
    lastAdd.forEach(
        (key, added) ->
            assertThat(lastRunStart.get(key))
                .as("key %s last run after its last add", key)
                .isGreaterThan(added));
    assertThat(queue.len()).isZero();
    assertThat(queue.processingCount()).isZero();
  }
}
