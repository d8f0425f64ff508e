package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code qm_gangs{state}} and {@code qm_gang_wait_seconds}, from workloads' statuses. */
class GangMetricsTest {
  private static final WorkerGroup WORKERS =
      new WorkerGroup("workers", 2, TaskTemplate.EMPTY, List.of(), null).withGang(GangSpec.ALL);
  private static final WorkerGroup PLAIN =
      new WorkerGroup("head", 1, TaskTemplate.EMPTY, List.of(), null);

  private static Workload job(String name, Optional<GangStatus> gang) {
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("head", 1, 1, 1, 0, 0, 1, Optional.empty()),
                new GroupStatus("workers", 2, 2, 0, 0, 0, 0, Optional.empty()).withGang(gang)),
            List.of());
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(PLAIN, WORKERS), Optional.empty()),
        status);
  }

  private static Optional<GangStatus> gang(GangState state, Instant since) {
    return Optional.of(new GangStatus(state, "", "", Optional.of(since)));
  }

  @Test
  void gangsAreCountedByStateEveryStatePresentAndAGangNotReportedYetWaits() {
    var t = Instant.parse("2026-03-01T12:00:00Z");
    var counts =
        GangCensus.of(
            List.of(
                job("a", gang(GangState.Waiting, t)),
                job("b", gang(GangState.Placed, t)),
                job("c", Optional.empty())));

    assertThat(counts)
        .isEqualTo(
            Map.of(
                GangState.Waiting, 2L,
                GangState.Placed, 1L,
                GangState.Partial, 0L,
                GangState.Finished, 0L));
  }

  @Test
  void aWaitIsRecordedOnceWhenTheGangIsPlacedFromWhenItBeganToWait() {
    var env = new DeterministicEnv(1);
    var registry = new SimpleMeterRegistry();
    var handler = new GangWaitTime(env, registry);
    var began = env.now();

    env.advance(Duration.ofSeconds(40));
    var waiting = job("a", gang(GangState.Waiting, began));
    handler.onUpdate(job("a", Optional.empty()), waiting);
    handler.onUpdate(waiting, waiting);
    env.advance(Duration.ofSeconds(5));
    var placed = job("a", gang(GangState.Placed, env.now()));
    handler.onUpdate(waiting, placed);
    handler.onUpdate(placed, placed);

    var timer = registry.get("qm.gang.wait").timer();
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(TimeUnit.SECONDS)).isEqualTo(45.0);
  }

  /** A launcher and its workers as one workload gang, its line the workload's own. */
  private static Workload wholeJob(String name, Optional<GangStatus> gang) {
    var status =
        new WorkloadStatus(
            1,
            List.of(
                new GroupStatus("head", 1, 1, 0, 0, 0, 0, Optional.empty()),
                new GroupStatus("workers", 2, 2, 0, 0, 0, 0, Optional.empty())),
            List.of(),
            gang);
    var workers = new WorkerGroup("workers", 2, TaskTemplate.EMPTY, List.of(), null);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(PLAIN, workers), Optional.empty(), Optional.of(GangSpec.ALL)),
        status);
  }

  /**
   * A workload gang is one gang, however many groups it spans: counted once, by the workload's line
   * (a count per group, or of group lines only, would say two, or none).
   */
  @Test
  void aWorkloadGangIsCountedOnceAndItsWaitRecordedOnce() {
    var t = Instant.parse("2026-03-01T12:00:00Z");
    assertThat(
            GangCensus.of(
                List.of(wholeJob("a", gang(GangState.Placed, t)), wholeJob("b", Optional.empty()))))
        .isEqualTo(
            Map.of(
                GangState.Waiting, 1L,
                GangState.Placed, 1L,
                GangState.Partial, 0L,
                GangState.Finished, 0L));

    var env = new DeterministicEnv(1);
    var registry = new SimpleMeterRegistry();
    var handler = new GangWaitTime(env, registry);
    var waiting = wholeJob("a", gang(GangState.Waiting, env.now()));
    env.advance(Duration.ofSeconds(12));
    handler.onUpdate(waiting, wholeJob("a", gang(GangState.Placed, env.now())));
    var timer = registry.get("qm.gang.wait").timer();
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(TimeUnit.SECONDS)).isEqualTo(12.0);
  }
}
