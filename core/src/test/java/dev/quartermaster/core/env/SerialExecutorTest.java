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
    serial.submit(() -> {
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
      serial.submit(() -> {
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
}
