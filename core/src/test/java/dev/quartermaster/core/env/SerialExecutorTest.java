package dev.quartermaster.core.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SerialExecutorTest {

  @Test
  void runsTasksInOrderOnePerEnvTurn() {
    DeterministicEnv env = new DeterministicEnv(1);
    SerialExecutor serial = new SerialExecutor(env);
    List<String> ran = new ArrayList<>();
    serial.submit(() -> ran.add("a"));
    serial.submit(() -> ran.add("b"));
    env.execute(() -> ran.add("other"));
    serial.submit(() -> ran.add("c"));
    env.runUntilIdle();
    // Another task interleaves between serial tasks, as it could in production.
    assertThat(ran).containsExactly("a", "other", "b", "c");
  }

  @Test
  void aFailingTaskDoesNotStopTheNext() {
    DeterministicEnv env = new DeterministicEnv(1);
    SerialExecutor serial = new SerialExecutor(env);
    List<String> ran = new ArrayList<>();
    serial.submit(
        () -> {
          throw new IllegalStateException("boom");
        });
    serial.submit(() -> ran.add("after"));
    assertThatThrownBy(env::runUntilIdle).hasMessage("boom");
    env.runUntilIdle();
    assertThat(ran).containsExactly("after");
  }

  @Test
  void neverRunsTwoTasksAtOnceOnVirtualThreads() throws Exception {
    SystemEnv env = new SystemEnv();
    SerialExecutor serial = new SerialExecutor(env);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    List<Integer> order = new ArrayList<>(); // guarded by serial execution itself
    int tasks = 2000;
    CountDownLatch done = new CountDownLatch(tasks);
    for (int i = 0; i < tasks; i++) {
      int n = i;
      serial.submit(
          () -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            order.add(n);
            Thread.yield();
            running.decrementAndGet();
            done.countDown();
          });
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(maxRunning).hasValue(1);
    assertThat(order).hasSize(tasks).isSorted();
  }

  @Test
  void runsUpToTheEnvsTasksPerTurnInOneTurnInOrder() {
    var env = new BatchingEnv(4);
    var serial = new SerialExecutor(env);
    List<Integer> ran = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int n = i;
      serial.submit(() -> ran.add(n));
    }
    env.inner.runUntilIdle();
    assertThat(ran).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertThat(env.turns).as("turns for 10 tasks, 4 a turn").isEqualTo(3);
    // Idle again: the next submit starts a turn of its own.
    serial.submit(() -> ran.add(10));
    env.inner.runUntilIdle();
    assertThat(ran).endsWith(10);
    assertThat(env.turns).isEqualTo(4);
  }

  @Test
  void aFailingTaskEndsItsTurnAndTheRestRunInTheNext() {
    var env = new BatchingEnv(8);
    var serial = new SerialExecutor(env);
    List<String> ran = new ArrayList<>();
    serial.submit(() -> ran.add("before"));
    serial.submit(
        () -> {
          throw new IllegalStateException("boom");
        });
    serial.submit(() -> ran.add("after"));
    assertThatThrownBy(env.inner::runUntilIdle).hasMessage("boom");
    env.inner.runUntilIdle();
    assertThat(ran).containsExactly("before", "after");
    assertThat(env.turns).isEqualTo(2);
  }

  @Test
  void theSimulationRunsOneTaskPerTurnAndProductionSeveral() {
    assertThat(new DeterministicEnv(1).tasksPerTurn()).isEqualTo(1);
    assertThat(new SystemEnv().tasksPerTurn()).isGreaterThan(1);
  }
}
