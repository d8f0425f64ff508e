package dev.quartermaster.core.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.Env.Cancellable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class SystemEnvTest {

  private final SystemEnv env = new SystemEnv();

  @Test
  void executeRunsOnAVirtualThread() throws Exception {
    CompletableFuture<Boolean> virtual = new CompletableFuture<>();
    env.execute(() -> virtual.complete(Thread.currentThread().isVirtual()));
    assertThat(virtual.get(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void scheduledTasksRunOnVirtualThreads() throws Exception {
    CompletableFuture<Boolean> virtual = new CompletableFuture<>();
    env.schedule(Duration.ofMillis(1), () -> virtual.complete(Thread.currentThread().isVirtual()));
    assertThat(virtual.get(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void cancelledTaskDoesNotRun() throws Exception {
    AtomicBoolean ran = new AtomicBoolean();
    Cancellable task = env.schedule(Duration.ofDays(1), () -> ran.set(true));
    assertThat(task.cancel()).isTrue();
    assertThat(task.cancel()).isFalse();
    // A later task that does run proves the timer is alive; the cancelled one never will.
    CountDownLatch later = new CountDownLatch(1);
    env.schedule(Duration.ZERO, later::countDown);
    assertThat(later.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).isFalse();
  }

  @Test
  void randomIsUsableFromManyThreads() throws Exception {
    int threads = 8;
    CountDownLatch done = new CountDownLatch(threads);
    for (int i = 0; i < threads; i++) {
      env.execute(
          () -> {
            for (int j = 0; j < 1000; j++) {
              assertThat(env.random().nextInt(10)).isBetween(0, 9);
            }
            done.countDown();
          });
    }
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
  }
}
