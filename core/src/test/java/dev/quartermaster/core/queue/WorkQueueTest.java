package dev.quartermaster.core.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  private final DeterministicEnv env = new DeterministicEnv(1);
  private final WorkQueue<String> queue = WorkQueue.create(env);

  private List<String> drain() {
    List<String> taken = new ArrayList<>();
    for (Optional<String> k = queue.poll(); k.isPresent(); k = queue.poll()) {
      taken.add(k.get());
    }
    return taken;
  }

  @Test
  void addDeduplicatesAndKeepsFifoOrder() {
    queue.add("a");
    queue.add("b");
    queue.add("a");
    queue.add("c");
    queue.add("b");
    assertThat(queue.len()).isEqualTo(3);
    assertThat(queue.adds()).isEqualTo(3);
    assertThat(drain()).containsExactly("a", "b", "c");
    assertThat(queue.len()).isZero();
    assertThat(queue.processingCount()).isEqualTo(3);
  }

  @Test
  void reAddWhileProcessingIsQueuedAgainOnlyAfterDone() {
    queue.add("a");
    assertThat(queue.poll()).contains("a");
    queue.add("a");
    queue.add("a");
    // Not handed to a second worker while the first still has it.
    assertThat(queue.poll()).isEmpty();
    assertThat(queue.len()).isZero();

    queue.done("a");
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.poll()).contains("a");
    queue.done("a");
    assertThat(queue.poll()).isEmpty();
  }

  @Test
  void doneWithoutProcessingFails() {
    assertThatThrownBy(() -> queue.done("never-taken"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not being processed");
  }

  @Test
  void readyListenerHearsAddsAndRequeues() {
    List<String> signals = new ArrayList<>();
    var subscription = queue.onReady(() -> signals.add("ready"));
    queue.add("a");
    queue.add("a"); // absorbed: no signal
    queue.poll();
    queue.add("a"); // dirty while processing: no signal yet
    assertThat(signals).hasSize(1);
    queue.done("a");
    assertThat(signals).hasSize(2);
    subscription.cancel();
    queue.add("b");
    assertThat(signals).hasSize(2);
  }

  @Test
  void addAfterFiresAtTheRightVirtualTime() {
    queue.addAfter("a", Duration.ofMillis(50));
    assertThat(queue.delayedCount()).isEqualTo(1);
    env.advance(Duration.ofMillis(49));
    assertThat(queue.len()).isZero();
    env.advance(Duration.ofMillis(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.delayedCount()).isZero();
  }

  @Test
  void addAfterKeepsTheEarliestDeadline() {
    queue.addAfter("a", Duration.ofMillis(50));
    queue.addAfter("a", Duration.ofMillis(80)); // later: ignored
    queue.addAfter("a", Duration.ofMillis(20)); // earlier: replaces
    env.advance(Duration.ofMillis(20));
    assertThat(drain()).containsExactly("a");
    queue.done("a");
    env.advance(Duration.ofSeconds(1));
    // The superseded timers add nothing.
    assertThat(queue.len()).isZero();
    assertThat(queue.adds()).isEqualTo(1);
  }

  @Test
  void addAfterZeroAddsAtOnce() {
    queue.addAfter("a", Duration.ZERO);
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void rateLimitedRequeueBacksOffExponentiallyToTheCap() {
    WorkQueue<String> q =
        new WorkQueue<>(env, new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1)));
    List<Long> delaysMillis = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long before = env.nanoTime();
      q.addRateLimited("a");
      assertThat(env.runUntil(() -> q.len() == 1, Duration.ofHours(1))).isTrue();
      delaysMillis.add((env.nanoTime() - before) / 1_000_000);
      assertThat(q.poll()).contains("a");
      q.done("a");
    }
    assertThat(delaysMillis)
        .containsExactly(5L, 10L, 20L, 40L, 80L, 160L, 320L, 640L, 1000L, 1000L);
    assertThat(q.numRequeues("a")).isEqualTo(10);
    assertThat(q.retries()).isEqualTo(10);
  }

  @Test
  void forgetResetsTheBackoff() {
    ExponentialBackoff<String> backoff =
        new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000));
    assertThat(backoff.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(backoff.when("a")).isEqualTo(Duration.ofMillis(10));
    assertThat(backoff.when("b")).isEqualTo(Duration.ofMillis(5));
    backoff.forget("a");
    assertThat(backoff.numRequeues("a")).isZero();
    assertThat(backoff.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(backoff.numRequeues("b")).isEqualTo(1);
  }

  @Test
  void exponentialBackoffReachesTheDefaultCapWithoutOverflow() {
    ExponentialBackoff<String> backoff =
        new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000));
    Duration last = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      Duration d = backoff.when("a");
      assertThat(d).isGreaterThanOrEqualTo(last).isLessThanOrEqualTo(Duration.ofSeconds(1000));
      last = d;
    }
    assertThat(last).isEqualTo(Duration.ofSeconds(1000));
    // 5 ms * 2^17 = 655 s is the last step under the cap.
    assertThat(ExponentialBackoff.delay(Duration.ofMillis(5), Duration.ofSeconds(1000), 17))
        .isEqualTo(Duration.ofMillis(655_360));
    assertThat(ExponentialBackoff.delay(Duration.ofMillis(5), Duration.ofSeconds(1000), 18))
        .isEqualTo(Duration.ofSeconds(1000));
  }

  @Test
  void tokenBucketAllowsTheBurstThenTenPerSecond() {
    TokenBucket<String> bucket = new TokenBucket<>(env, 10, 100);
    for (int i = 0; i < 100; i++) {
      assertThat(bucket.when("k" + i)).isZero();
    }
    assertThat(bucket.when("x")).isEqualTo(Duration.ofMillis(100));
    assertThat(bucket.when("y")).isEqualTo(Duration.ofMillis(200));
    // One second refills ten tokens; two were already promised.
    env.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 8; i++) {
      assertThat(bucket.when("z" + i)).isZero();
    }
    assertThat(bucket.when("w")).isEqualTo(Duration.ofMillis(100));
    // A long idle spell refills to the burst, no further.
    env.advance(Duration.ofHours(1));
    for (int i = 0; i < 100; i++) {
      assertThat(bucket.when("k" + i)).isZero();
    }
    assertThat(bucket.when("x")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void controllerDefaultIsTheStricterOfBackoffAndBucket() {
    RateLimiter<String> limiter = RateLimiter.controllerDefault(env);
    // Per-key backoff dominates while the bucket has tokens.
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
    for (int i = 0; i < 1_008; i++) {
      limiter.when("k" + i);
    }
    // The bucket (500/s, bursts of 1,000) is 10 retries past dry: the 1,011th waits 11 × 2 ms, not
    // its own 5 ms.
    assertThat(limiter.when("fresh")).isEqualTo(Duration.ofMillis(22));
    assertThat(limiter.numRequeues("a")).isEqualTo(2);
    limiter.forget("a");
    assertThat(limiter.numRequeues("a")).isZero();
  }

  @Test
  void shutDownStopsAddsAndCancelsDelayedButLetsWorkersDrain() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.addAfter("later", Duration.ofSeconds(1));
    queue.shutDown();
    assertThat(queue.isShutDown()).isTrue();
    queue.add("c");
    queue.addRateLimited("d");
    env.advance(Duration.ofHours(1));
    assertThat(queue.delayedCount()).isZero();
    assertThat(env.pendingTasks()).isZero();
    assertThat(queue.take()).contains("a");
    assertThat(queue.take()).contains("b");
    // Shut down and drained: take no longer waits.
    assertThat(queue.take()).isEmpty();
    assertThat(queue.adds()).isEqualTo(2);
    assertThat(queue.retries()).isZero();
  }
}
