package dev.quartermaster.core.serial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.core.serial.CallRecorder.Behaviour;
import dev.quartermaster.core.serial.CallRecorder.Submitted;
import dev.quartermaster.core.serial.KeyedSerializer.Started;
import dev.quartermaster.core.serial.KeyedSerializer.Stats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KeyedSerializerTest {

  private final DeterministicEnv env = new DeterministicEnv(1);
  private final KeyedSerializer<String> serializer = new KeyedSerializer<>(env);
  private final CallRecorder<String> calls = new CallRecorder<>();

  @Test
  void startsCallsForOneKeyOneAtATimeInSubmissionOrder() {
    List<Submitted<String>> submitted = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      submitted.add(calls.submit(serializer, "a"));
    }
    // Nothing starts inside submit: the first call's start is an env task.
    assertThat(calls.startedCount()).isZero();
    assertThat(serializer.inFlight("a")).isTrue();
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0);
    assertThat(serializer.waiting("a")).isEqualTo(4);

    for (int i = 1; i < 5; i++) {
      calls.succeed(calls.runningFor("a"));
      assertThat(submitted.get(i - 1).result().toCompletableFuture())
          .isCompletedWithValue("a#" + (i - 1));
      assertThat(calls.startedCount()).as("the next call starts in its own env task").isEqualTo(i);
      env.runUntilIdle();
      assertThat(calls.starts("a")).hasSize(i + 1);
    }
    calls.succeed(calls.runningFor("a"));
    assertThat(calls.starts("a")).containsExactly(0, 1, 2, 3, 4);
    assertThat(calls.maxInFlightPerKey()).isEqualTo(1);
    assertThat(serializer.inFlight("a")).isFalse();
    assertThat(serializer.stats()).isEqualTo(new Stats(5, 5, 5, 0, 0, 0, 0, 0, 0));
  }

  @Test
  void keysDoNotWaitForEachOther() {
    calls.submit(serializer, "stuck");
    calls.submit(serializer, "stuck");
    for (int i = 0; i < 3; i++) {
      calls.submit(serializer, "b");
      calls.submit(serializer, "c");
    }
    env.runUntilIdle();
    for (int i = 0; i < 3; i++) {
      calls.succeed(calls.runningFor("b"));
      calls.succeed(calls.runningFor("c"));
      env.runUntilIdle();
    }
    assertThat(calls.starts("b")).containsExactly(2, 4, 6);
    assertThat(calls.starts("c")).containsExactly(3, 5, 7);
    assertThat(calls.starts("stuck")).containsExactly(0);
    assertThat(serializer.waiting("stuck")).isEqualTo(1);
    assertThat(serializer.stats().heldKeys()).isEqualTo(1);
  }

  @Test
  void aSubmitFromWithinACompletingCallQueuesBehindEarlierWaiters() {
    Submitted<String> first = calls.submit(serializer, "a");
    calls.submit(serializer, "a");
    List<Boolean> inFlightSeenByContinuation = new ArrayList<>();
    first
        .result()
        .thenRun(
            () -> {
              inFlightSeenByContinuation.add(serializer.inFlight("a"));
              calls.submit(serializer, "a");
            });
    env.runUntilIdle();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0, 1, 2);
    // The slot passed to call 1 before call 0's continuation ran.
    assertThat(inFlightSeenByContinuation).containsExactly(true);
  }

  @Test
  void aContinuationSeesItsOwnCallReleasedAndItsSubmitStartsNext() {
    Submitted<String> only = calls.submit(serializer, "a");
    List<Boolean> inFlightSeen = new ArrayList<>();
    only.result()
        .thenRun(
            () -> {
              inFlightSeen.add(serializer.inFlight("a"));
              calls.submit(serializer, "a");
            });
    env.runUntilIdle();
    calls.succeed(calls.runningFor("a"));
    assertThat(inFlightSeen).containsExactly(false);
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0, 1);
  }

  @Test
  void exactFifoAndAtMostOneInFlightUnderRandomWorkloads() {
    for (long seed = 1; seed <= 60; seed++) {
      DeterministicEnv seeded = new DeterministicEnv(seed);
      KeyedSerializer<String> keyed = new KeyedSerializer<>(seeded);
      SerializerWorkload.Report report = SerializerWorkload.run(keyed, seeded, 4, 2_000, true);
      assertThat(report.fifoAndExclusive()).as("seed %d: %s", seed, report).isTrue();
      assertThat(report.abandoned()).as("seed %d cancelled some waiters", seed).isPositive();
      Stats stats = keyed.stats();
      assertThat(stats.submitted()).isEqualTo(report.submitted());
      assertThat(stats.started()).isEqualTo(report.started());
      assertThat(stats.cancelled()).isEqualTo(report.abandoned());
      assertThat(stats.completed()).isEqualTo(stats.started());
      assertThat(stats.heldKeys()).as("seed %d left keys behind", seed).isZero();
      assertThat(stats.waiting()).isZero();
    }
  }

  @Test
  void theSameSeedGivesTheSameRun() {
    List<SerializerWorkload.Report> reports = new ArrayList<>();
    List<List<Started<String>>> startOrders = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      DeterministicEnv seeded = new DeterministicEnv(42);
      KeyedSerializer<String> keyed = new KeyedSerializer<>(seeded);
      List<Started<String>> starts = new ArrayList<>();
      keyed.onStart(starts::add);
      reports.add(SerializerWorkload.run(keyed, seeded, 3, 1_000, true));
      startOrders.add(starts);
    }
    assertThat(reports.get(1)).isEqualTo(reports.get(0));
    assertThat(startOrders.get(1)).isEqualTo(startOrders.get(0)).isNotEmpty();
  }

  @Test
  void aCancelledWaiterLeavesTheQueueAndNeverStarts() {
    calls.submit(serializer, "a");
    Submitted<String> second = calls.submit(serializer, "a");
    calls.submit(serializer, "a");
    env.runUntilIdle();

    assertThat(calls.cancel(second)).isTrue();
    assertThat(serializer.waiting("a")).isEqualTo(1);
    assertThat(second.result().toCompletableFuture()).isCancelled();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();

    assertThat(calls.starts("a")).containsExactly(0, 2);
    assertThat(calls.violations()).isEmpty();
    assertThat(serializer.stats()).isEqualTo(new Stats(3, 2, 2, 0, 1, 0, 0, 0, 0));
  }

  @Test
  void aCallCancelledAfterItWasGrantedButBeforeItStartedNeverStarts() {
    Submitted<String> first = calls.submit(serializer, "a");
    calls.submit(serializer, "a");
    calls.cancel(first); // its start task is queued on the env, not run yet
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(1);
    calls.succeed(calls.runningFor("a"));
    assertThat(serializer.inFlight("a")).isFalse();
    assertThat(serializer.stats().cancelled()).isEqualTo(1);
    assertThat(serializer.stats().started()).isEqualTo(1);
  }

  @Test
  void cancellingAStartedCallKeepsTheSlotUntilItsStageCompletes() {
    Submitted<String> first = calls.submit(serializer, "a");
    calls.submit(serializer, "a");
    env.runUntilIdle();

    assertThat(calls.cancel(first)).isTrue();
    env.runUntilIdle();
    // The storage system may still be doing call 0: call 1 must not overlap it.
    assertThat(calls.starts("a")).containsExactly(0);
    assertThat(serializer.inFlight("a")).isTrue();
    assertThat(serializer.waiting("a")).isEqualTo(1);

    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0, 1);
    assertThat(first.result().toCompletableFuture()).isCancelled();
    assertThat(serializer.stats().cancelled()).as("counted as started, not cancelled").isZero();
  }

  @Test
  void aWaiterCanGiveUpAtItsOwnDeadline() {
    calls.submit(serializer, "a");
    CompletableFuture<String> waiter = calls.submit(serializer, "a").result().toCompletableFuture();
    env.schedule(
        Duration.ofSeconds(30), () -> waiter.completeExceptionally(new TimeoutException("30s")));
    env.advance(Duration.ofSeconds(31));

    assertThat(waiter).isCompletedExceptionally();
    assertThat(serializer.waiting("a")).isZero();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0);
    assertThat(serializer.inFlight("a")).isFalse();
  }

  @Test
  void aCallThatThrowsOrFailsReleasesTheSlot() {
    CompletionException npe = new CompletionException(new NullPointerException());
    List<CompletableFuture<String>> results = new ArrayList<>();
    results.add(calls.submit(serializer, "a", Behaviour.THROWS).result().toCompletableFuture());
    results.add(calls.submit(serializer, "a", Behaviour.FAILS).result().toCompletableFuture());
    results.add(serializer.submit("a", () -> null));
    results.add(calls.submit(serializer, "a", Behaviour.SUCCEEDS).result().toCompletableFuture());
    env.runUntilIdle();

    assertThat(calls.starts("a")).containsExactly(0, 1, 2);
    assertThatThrownBy(results.get(0)::join).hasRootCauseMessage("call 0 threw");
    assertThatThrownBy(results.get(1)::join).hasRootCauseMessage("call 1");
    assertThatThrownBy(results.get(2)::join)
        .isInstanceOf(npe.getClass())
        .hasRootCauseInstanceOf(NullPointerException.class);
    assertThat(results.get(3)).isCompletedWithValue("a#2");
    assertThat(serializer.inFlight("a")).isFalse();
    assertThat(serializer.stats()).isEqualTo(new Stats(4, 4, 4, 3, 0, 0, 0, 0, 0));
  }

  @Test
  void aStageFailedLaterReleasesTheSlot() {
    calls.submit(serializer, "a");
    calls.submit(serializer, "a");
    env.runUntilIdle();
    calls.fail(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0, 1);
    assertThat(serializer.stats().failed()).isEqualTo(1);
  }

  @Test
  void closeFailsEveryWaiterAtOnceLeavesStartedCallsAloneAndRefusesUntilReopened() {
    IllegalStateException deposed = new IllegalStateException("no longer the leader");
    Submitted<String> running = calls.submit(serializer, "a");
    env.runUntilIdle();
    List<CompletableFuture<String>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(calls.submit(serializer, "a").result().toCompletableFuture());
    }
    CompletableFuture<String> granted =
        calls.submit(serializer, "b").result().toCompletableFuture();

    serializer.close(deposed);

    // At once: no env task had to run.
    assertThat(env.pendingTasks()).isEqualTo(1); // b's start task, which will find it failed
    for (CompletableFuture<String> waiter : waiters) {
      assertThatThrownBy(waiter::join).hasCause(deposed);
    }
    assertThatThrownBy(granted::join).hasCause(deposed);
    assertThat(running.result().toCompletableFuture()).isNotDone();
    assertThat(serializer.waiting("a")).isZero();
    assertThat(serializer.inFlight("a")).isTrue();

    CompletableFuture<String> refused =
        serializer.submit(
            "c",
            () -> {
              throw new AssertionError("must not start");
            });
    assertThatThrownBy(refused::join).hasCause(deposed);
    env.runUntilIdle();
    assertThat(calls.starts("b")).isEmpty();
    assertThat(serializer.inFlight("b")).isFalse();

    // The next term: a's old call is still in flight, and the new one waits for it.
    assertThat(serializer.reopen()).isTrue();
    assertThat(serializer.isClosed()).isFalse();
    Submitted<String> nextTerm = calls.submit(serializer, "a");
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0);
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(calls.starts("a")).containsExactly(0, nextTerm.id());
    calls.succeed(calls.runningFor("a"));

    assertThat(running.result().toCompletableFuture()).isCompletedWithValue("a#0");
    assertThat(calls.maxInFlightPerKey()).isEqualTo(1);
    assertThat(serializer.stats()).isEqualTo(new Stats(6, 2, 2, 0, 0, 4, 1, 0, 0));
  }

  @Test
  void tenThousandWaitersOnOneKeyHoldNoThreadAndNoTask() {
    int count = 10_000;
    List<Submitted<String>> submitted = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      submitted.add(calls.submit(serializer, "x"));
    }
    // Waiters are queue entries: the only env task is the first call's start.
    assertThat(env.pendingTasks()).isEqualTo(1);
    env.runUntilIdle();
    assertThat(serializer.waiting("x")).isEqualTo(count - 1);
    assertThat(env.pendingTasks()).isZero();

    for (int i = 0; i < count; i++) {
      calls.succeed(calls.runningFor("x"));
      assertThat(env.pendingTasks()).isLessThanOrEqualTo(1);
      env.runUntilIdle();
    }
    assertThat(calls.starts("x")).isEqualTo(IntStream.range(0, count).boxed().toList());
    assertThat(calls.threads()).containsExactly(Thread.currentThread());
    assertThat(submitted).allSatisfy(s -> assertThat(s.result().toCompletableFuture()).isDone());
    assertThat(serializer.stats().heldKeys()).isZero();
  }

  @Test
  void callsThatCompleteSynchronouslyDoNotRecurse() {
    int count = 50_000;
    for (int i = 0; i < count; i++) {
      calls.submit(serializer, "x", Behaviour.SUCCEEDS);
    }
    env.runUntilIdle(); // would overflow the stack if each start ran inside the previous one
    assertThat(calls.startedCount()).isEqualTo(count);
    assertThat(serializer.inFlight("x")).isFalse();
  }

  @Test
  void keysThatComeAndGoLeaveNoEntries() {
    List<Submitted<String>> abandoned = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      calls.submit(serializer, "key-" + i);
      abandoned.add(calls.submit(serializer, "key-" + i));
    }
    env.runUntilIdle();
    assertThat(serializer.stats().heldKeys()).isEqualTo(1_000);
    abandoned.forEach(calls::cancel);
    calls.running().forEach(calls::succeed);
    env.runUntilIdle();
    assertThat(serializer.stats().heldKeys()).isZero();
    assertThat(serializer.stats().waiting()).isZero();
    assertThat(serializer.inFlight("key-7")).isFalse();
    assertThat(serializer.waiting("key-7")).isZero();
  }

  @Test
  void startListenersSeeEveryStartInOrderUntilCancelled() {
    List<Started<String>> seen = new ArrayList<>();
    Cancellable listening = serializer.onStart(seen::add);
    calls.submit(serializer, "a");
    calls.submit(serializer, "b");
    calls.submit(serializer, "a");
    env.runUntilIdle();
    calls.succeed(calls.runningFor("a"));
    env.runUntilIdle();
    assertThat(seen)
        .containsExactly(
            new Started<>("a", 0, 0), new Started<>("b", 1, 1), new Started<>("a", 2, 2));

    assertThat(listening.cancel()).isTrue();
    calls.submit(serializer, "c");
    env.runUntilIdle();
    assertThat(seen).hasSize(3);
  }

  @Test
  void aThrowingStartListenerFailsThatCallWithoutStartingIt() {
    serializer.onStart(
        started -> {
          if (started.submission() == 0) {
            throw new IllegalStateException("listener");
          }
        });
    CompletableFuture<String> first = calls.submit(serializer, "a").result().toCompletableFuture();
    calls.submit(serializer, "a");
    env.runUntilIdle();
    assertThatThrownBy(first::join).hasRootCauseMessage("listener");
    assertThat(calls.starts("a")).containsExactly(1);
  }

  @Test
  void cancellationExceptionIsWhatACancelledWaiterReports() {
    calls.submit(serializer, "a");
    Submitted<String> waiter = calls.submit(serializer, "a");
    calls.cancel(waiter);
    assertThatThrownBy(waiter.result().toCompletableFuture()::join)
        .isInstanceOf(CancellationException.class);
  }
}
