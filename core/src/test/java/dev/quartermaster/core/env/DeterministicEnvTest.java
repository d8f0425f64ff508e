package dev.quartermaster.core.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.core.env.Env.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeterministicEnvTest {

  /** Tasks that schedule random follow-ups at random delays; returns what ran, when. */
  private static List<String> randomizedTrace(long seed) {
    DeterministicEnv env = new DeterministicEnv(seed);
    List<String> trace = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      spawn(env, trace, "t" + i, 3);
    }
    env.advance(Duration.ofSeconds(10));
    return trace;
  }

  private static void spawn(DeterministicEnv env, List<String> trace, String name, int depth) {
    Duration delay = Duration.ofMillis(env.random().nextInt(50)); // many ties on purpose
    env.schedule(
        delay,
        () -> {
          trace.add(env.nanoTime() + " " + name + " " + env.random().nextInt(1000));
          if (depth > 0) {
            int children = env.random().nextInt(3);
            for (int c = 0; c < children; c++) {
              spawn(env, trace, name + "." + c, depth - 1);
            }
          }
        });
  }

  @Test
  void sameSeedGivesIdenticalTrace() {
    List<String> first = randomizedTrace(42);
    assertThat(first).hasSizeGreaterThan(20);
    assertThat(randomizedTrace(42)).isEqualTo(first);
    assertThat(randomizedTrace(43)).isNotEqualTo(first);
  }

  @Test
  void tiesRunInSchedulingOrder() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int n = i;
      env.schedule(Duration.ofMillis(5), () -> order.add(n));
    }
    env.execute(() -> order.add(-1));
    env.advance(Duration.ofMillis(5));
    assertThat(order).containsExactly(-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void advanceMovesTheClockToEachTaskThenToTheEnd() {
    DeterministicEnv env = new DeterministicEnv(1);
    Instant start = env.now();
    List<Long> seen = new ArrayList<>();
    env.schedule(Duration.ofMillis(30), () -> seen.add(env.nanoTime()));
    env.schedule(
        Duration.ofMillis(10),
        () -> {
          seen.add(env.nanoTime());
          env.schedule(Duration.ofMillis(5), () -> seen.add(env.nanoTime()));
        });
    env.schedule(Duration.ofMillis(101), () -> seen.add(env.nanoTime()));

    env.advance(Duration.ofMillis(100));

    assertThat(seen).containsExactly(10_000_000L, 15_000_000L, 30_000_000L);
    assertThat(env.nanoTime()).isEqualTo(100_000_000L);
    assertThat(env.now()).isEqualTo(start.plusMillis(100));
    assertThat(env.pendingTasks()).isEqualTo(1);
    env.advance(Duration.ofMillis(1));
    assertThat(seen).hasSize(4);
    assertThat(env.pendingTasks()).isZero();
  }

  @Test
  void runUntilIdleRunsWhatIsDueIncludingFollowUpsWithoutMovingTime() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<String> ran = new ArrayList<>();
    env.execute(
        () -> {
          ran.add("a");
          env.execute(() -> ran.add("b"));
          env.schedule(Duration.ofNanos(1), () -> ran.add("later"));
        });
    assertThat(env.runUntilIdle()).isEqualTo(2);
    assertThat(ran).containsExactly("a", "b");
    assertThat(env.nanoTime()).isZero();
    assertThat(env.pendingTasks()).isEqualTo(1);
  }

  @Test
  void startsAtTheDefaultInstantUnlessGivenOne() {
    assertThat(new DeterministicEnv(1).now()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    Instant other = Instant.parse("2030-05-05T05:05:05Z");
    assertThat(new DeterministicEnv(1, other).now()).isEqualTo(other);
  }

  @Test
  void runUntilStopsWhenTheConditionHoldsOrAtTheLimit() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<Integer> ticks = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      int n = i;
      env.schedule(Duration.ofSeconds(i), () -> ticks.add(n));
    }
    assertThat(env.runUntil(() -> ticks.size() == 3, Duration.ofMinutes(1))).isTrue();
    assertThat(env.nanoTime()).isEqualTo(Duration.ofSeconds(3).toNanos());

    assertThat(env.runUntil(() -> ticks.size() == 10, Duration.ofSeconds(10))).isFalse();
    assertThat(ticks).containsExactly(1, 2, 3, 4, 5);
    assertThat(env.nanoTime()).isEqualTo(Duration.ofSeconds(13).toNanos());
  }

  @Test
  void runNextRunsOneTaskAtItsTime() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<String> ran = new ArrayList<>();
    env.schedule(Duration.ofSeconds(2), () -> ran.add("b"));
    env.schedule(Duration.ofSeconds(1), () -> ran.add("a"));
    assertThat(env.runNext()).isTrue();
    assertThat(ran).containsExactly("a");
    assertThat(env.nanoTime()).isEqualTo(1_000_000_000L);
    assertThat(env.runNext()).isTrue();
    assertThat(env.runNext()).isFalse();
  }

  @Test
  void cancelledTasksDoNotRun() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<String> ran = new ArrayList<>();
    Cancellable a = env.schedule(Duration.ofMillis(1), () -> ran.add("a"));
    env.schedule(Duration.ofMillis(2), () -> ran.add("b"));
    assertThat(a.cancel()).isTrue();
    assertThat(a.cancel()).isFalse();
    assertThat(env.pendingTasks()).isEqualTo(1);
    env.advance(Duration.ofMillis(5));
    assertThat(ran).containsExactly("b");
  }

  @Test
  void cancellingAfterRunningReportsFalse() {
    DeterministicEnv env = new DeterministicEnv(1);
    Cancellable task = env.schedule(Duration.ZERO, () -> {});
    env.runUntilIdle();
    assertThat(task.cancel()).isFalse();
  }

  @Test
  void manyCancelledTimersAreSweptAndTheRestStillRunInOrder() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<Integer> ran = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      int n = i;
      Cancellable c = env.schedule(Duration.ofMillis(1000 - i), () -> ran.add(n));
      if (i % 10 != 0) {
        c.cancel();
      }
    }
    assertThat(env.pendingTasks()).isEqualTo(100);
    env.advance(Duration.ofSeconds(2));
    assertThat(ran).hasSize(100).isSortedAccordingTo((x, y) -> Integer.compare(y, x));
  }

  @Test
  void aTaskMayNotDriveTheEnv() {
    DeterministicEnv env = new DeterministicEnv(1);
    env.execute(env::runUntilIdle);
    assertThatThrownBy(env::runUntilIdle)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already running");
    // The failure left the env usable.
    env.execute(() -> {});
    assertThat(env.runUntilIdle()).isEqualTo(1);
  }

  @Test
  void useFromAnotherThreadFailsLoudly() throws Exception {
    DeterministicEnv env = new DeterministicEnv(7);
    var random = env.random();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      List<Future<?>> calls =
          List.of(
              other.submit(env::nanoTime),
              other.submit(env::now),
              other.submit(() -> env.execute(() -> {})),
              other.submit(() -> env.schedule(Duration.ofSeconds(1), () -> {})),
              other.submit(env::runUntilIdle),
              other.submit(() -> random.nextInt()));
      for (Future<?> call : calls) {
        assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("owned by thread");
      }
    } finally {
      other.shutdownNow();
    }
    assertThat(env.pendingTasks()).isZero();
  }

  @Test
  void aTaskThatThrowsPropagatesAndLeavesTheRestQueued() {
    DeterministicEnv env = new DeterministicEnv(1);
    List<String> ran = new ArrayList<>();
    env.execute(
        () -> {
          throw new IllegalArgumentException("boom");
        });
    env.execute(() -> ran.add("next"));
    assertThatThrownBy(env::runUntilIdle).hasMessage("boom");
    env.runUntilIdle();
    assertThat(ran).containsExactly("next");
  }

  @Test
  void seedIsReported() {
    assertThat(new DeterministicEnv(1234).seed()).isEqualTo(1234);
  }
}
