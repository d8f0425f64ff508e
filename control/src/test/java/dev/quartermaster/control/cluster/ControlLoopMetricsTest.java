package dev.quartermaster.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ControlLoopMetricsTest {

  record Seen(String controller, Duration took, ReconcileOutcome outcome) {}

  @Test
  void everyReconcileIsReportedWithItsOutcomeTimedOnTheEnvsClock() {
    var env = new DeterministicEnv(1);
    List<Seen> seen = new ArrayList<>();
    var loop =
        new ControlLoop(
            "things",
            env,
            1,
            key ->
                switch (key) {
                  case "slow" -> Result.done();
                  case "later" -> Result.requeueAfter(Duration.ofHours(1));
                  case "boom" -> throw new IllegalStateException("boom");
                  default -> Result.requeue();
                });
    loop.observeWith((controller, took, outcome) -> seen.add(new Seen(controller, took, outcome)));
    loop.start();
    for (var key : List.of("slow", "later", "boom")) {
      loop.enqueue(key);
      env.runUntilIdle();
    }
    loop.stop();

    assertThat(seen)
        .extracting(Seen::outcome)
        .containsExactly(
            ReconcileOutcome.DONE, ReconcileOutcome.REQUEUE_AFTER, ReconcileOutcome.ERROR);
    assertThat(seen).extracting(Seen::controller).containsOnly("things");
    // Measured on the env's clock, which stands still while a deterministic env runs one task: the
    // simulation's runs stay reproducible.
    assertThat(seen).extracting(Seen::took).containsOnly(Duration.ZERO);
  }

  @Test
  void withoutAnObserverNothingIsReportedAndTheLoopRunsAsBefore() {
    var env = new DeterministicEnv(1);
    List<String> ran = new ArrayList<>();
    var loop =
        new ControlLoop(
            "things",
            env,
            1,
            key -> {
              ran.add(key);
              return Result.done();
            });
    loop.start();
    loop.enqueue("a");
    env.runUntilIdle();
    assertThat(ran).containsExactly("a");
  }
}
