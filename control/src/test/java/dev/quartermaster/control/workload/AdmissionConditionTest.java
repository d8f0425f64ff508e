package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.Requeue;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link AdmissionCondition}: which reason a queued workload's standing gives, first match wins.
 */
class AdmissionConditionTest {
  private static final Instant AT = Instant.parse("2026-03-01T12:00:00Z");
  private static final Workload W =
      new Workload(
          ObjectMeta.named("train").withUid("uid-train"),
          new WorkloadSpec(
                  List.of(
                      new WorkerGroup(
                          "w", 1, TaskTemplate.EMPTY, List.of(), RestartPolicy.OnFailure)),
                  Optional.empty())
              .inQueue("team", Optional.of("urgent")),
          null);
  private static final Admitted ADMITTED =
      new Admitted(
          "uid-train", "team", Map.of("w", 1), Map.of(), 0, AT, Optional.empty(), List.of());
  private static final QueueStanding NOWHERE =
      new QueueStanding(
          Optional.empty(), Optional.empty(), Optional.empty(), () -> false, true, true);

  private static String reasonOf(QueueStanding s) {
    return AdmissionCondition.of(W, s).reason();
  }

  @Test
  void eachStandingGivesItsReason() {
    var evicted =
        new Admitted(
            "uid-train",
            "team",
            Map.of("w", 1),
            Map.of(),
            0,
            AT,
            Optional.of(new Eviction("other", "uid-other", EvictionReason.Preempted, AT)),
            List.of());
    var nomination = new Nomination("uid-train", "team", 0, List.of("a", "b"), AT);
    var requeue = new Requeue("uid-train", 2, EvictionReason.Preempted, AT, 20);
    assertThat(
            reasonOf(
                new QueueStanding(
                    Optional.of(evicted),
                    Optional.empty(),
                    Optional.empty(),
                    () -> false,
                    true,
                    true)))
        .isEqualTo("Preempted");
    assertThat(
            reasonOf(
                new QueueStanding(
                    Optional.empty(),
                    Optional.of(nomination),
                    Optional.empty(),
                    () -> false,
                    true,
                    true)))
        .isEqualTo(WorkloadConditions.PREEMPTING);
    var admitted =
        AdmissionCondition.of(
            W,
            new QueueStanding(
                Optional.of(ADMITTED),
                Optional.of(nomination),
                Optional.empty(),
                () -> true,
                true,
                true));
    assertThat(admitted.isTrue()).isTrue();
    assertThat(admitted.reason()).isEqualTo(WorkloadConditions.ADMITTED_BY_QUEUE);
    assertThat(
            AdmissionCondition.of(
                    W,
                    new QueueStanding(
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(requeue),
                        () -> true,
                        true,
                        true))
                .message())
        .startsWith("evicted (Preempted, 2 times in a row); waits out a backoff of 20s");
    assertThat(
            reasonOf(
                new QueueStanding(
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    () -> true,
                    false,
                    false)))
        .isEqualTo(WorkloadConditions.FINISHED);
    assertThat(
            reasonOf(
                new QueueStanding(
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    () -> false,
                    false,
                    false)))
        .isEqualTo(WorkloadConditions.NO_SUCH_QUEUE);
    assertThat(
            AdmissionCondition.of(
                    W,
                    new QueueStanding(
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        () -> false,
                        true,
                        false))
                .message())
        .isEqualTo("priority class urgent does not exist");
    assertThat(reasonOf(NOWHERE)).isEqualTo(WorkloadConditions.PENDING);
  }

  /** Whether the job is over reads every group's tasks: asked only when nothing above decides. */
  @Test
  void anAdmittedWorkloadDoesNotAskWhetherItsJobIsOver() {
    var standing =
        new QueueStanding(
            Optional.of(ADMITTED),
            Optional.empty(),
            Optional.empty(),
            () -> {
              throw new AssertionError("asked");
            },
            true,
            true);
    assertThat(AdmissionCondition.of(W, standing).isTrue()).isTrue();
  }
}
