package dev.quartermaster.core.serial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.serial.KeyedSerializer.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Real threads: producers on virtual threads submit and cancel on few keys, and calls complete on
 * other virtual threads, so submit, cancel, start and release race on the lock.
 */
class KeyedSerializerConcurrencyTest {

  private static final int KEYS = 6;
  private static final int PRODUCERS = 6;
  private static final int SUBMITS_PER_PRODUCER = 1_500;

  /** One submit: who made it, and its place among that producer's submits. */
  private record Call(int producer, int sequence) {}

  @Test
  void oneCallPerKeyAtATimeAndEachProducersCallsStartInItsOrder() throws Exception {
    SystemEnv env = new SystemEnv();
    KeyedSerializer<Integer> serializer = new KeyedSerializer<>(env);
    Map<Integer, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    Map<Integer, List<Call>> starts = new ConcurrentHashMap<>();
    AtomicInteger maxInFlight = new AtomicInteger();
    List<CompletableFuture<String>> results = new CopyOnWriteArrayList<>();
    CountDownLatch producersDone = new CountDownLatch(PRODUCERS);

    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      env.execute(
          () -> {
            List<CompletableFuture<String>> mine = new ArrayList<>();
            for (int i = 0; i < SUBMITS_PER_PRODUCER; i++) {
              int key = env.random().nextInt(KEYS);
              Call call = new Call(producer, i);
              CompletableFuture<String> result =
                  serializer.submit(
                      key,
                      () -> {
                        int now =
                            inFlight
                                .computeIfAbsent(key, k -> new AtomicInteger())
                                .incrementAndGet();
                        maxInFlight.accumulateAndGet(now, Math::max);
                        starts.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(call);
                        CompletableFuture<String> stage = new CompletableFuture<>();
                        env.execute(
                            () -> {
                              inFlight.get(key).decrementAndGet();
                              stage.complete("done");
                            });
                        return stage;
                      });
              mine.add(result);
              if (i % 7 == 0) {
                mine.get(env.random().nextInt(mine.size())).cancel(false);
              }
            }
            results.addAll(mine);
            producersDone.countDown();
          });
    }
    assertThat(producersDone.await(60, TimeUnit.SECONDS)).isTrue();
    // Every future ends: run, cancelled, or failed; waiting for them guards against a hang only.
    CompletableFuture.allOf(
            results.stream()
                .map(f -> f.handle((value, failure) -> value))
                .toArray(CompletableFuture[]::new))
        .get(60, TimeUnit.SECONDS);
    // A call cancelled after it was granted the slot releases it in a start task nobody waits
    // for; a last call per key starts only after those, and releases before it completes.
    List<CompletableFuture<String>> last = new ArrayList<>();
    for (int key = 0; key < KEYS; key++) {
      last.add(serializer.submit(key, () -> CompletableFuture.completedFuture("last")));
    }
    CompletableFuture.allOf(last.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    assertThat(maxInFlight).hasValue(1);
    for (List<Call> keyStarts : starts.values()) {
      for (int p = 0; p < PRODUCERS; p++) {
        int producer = p;
        List<Integer> order =
            keyStarts.stream().filter(c -> c.producer() == producer).map(Call::sequence).toList();
        assertThat(order).as("producer %d's calls for one key", producer).isSorted();
      }
    }
    Stats stats = serializer.stats();
    int total = PRODUCERS * SUBMITS_PER_PRODUCER + KEYS;
    assertThat(stats.submitted()).isEqualTo(total);
    assertThat(stats.started() + stats.cancelled()).isEqualTo(total);
    assertThat(stats.cancelled()).isPositive();
    assertThat(stats.started())
        .isEqualTo(starts.values().stream().mapToInt(List::size).sum() + KEYS);
    assertThat(stats.completed()).isEqualTo(stats.started());
    assertThat(stats.heldKeys()).isZero();
    assertThat(stats.waiting()).isZero();
  }
}
