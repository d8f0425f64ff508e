package dev.quartermaster.cli.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 48, item 6: {@code apply --wait} on a workload whose device class does not exist waited its
 * whole timeout and then said only {@code 1/5 Running}. It says why it waits, and stops at once
 * where only a change of the cluster can end the wait.
 */
class ReadinessTest {
  private static Workload job(Condition... conditions) {
    return new Workload(
        ObjectMeta.named("nocls"),
        new WorkloadSpec(
            List.of(new WorkerGroup("w", 5, TaskTemplate.EMPTY, List.of(), null)),
            Optional.empty()),
        new WorkloadStatus(
            1,
            List.of(new GroupStatus("w", 5, 1, 1, 0, 0, 1, Optional.empty())),
            List.of(conditions)));
  }

  private static Condition no(String type, String reason, String message) {
    return new Condition(type, Condition.Status.False, reason, message, Optional.empty());
  }

  @Test
  void aMissingDeviceClassIsStuckNamingIt() {
    var readiness =
        Readiness.of(
            job(
                no(
                    WorkloadConditions.SCHEDULABLE,
                    WorkloadConditions.NO_SUCH_DEVICE_CLASS,
                    "claim template gpu names device class nocls, which does not exist")));

    assertThat(readiness)
        .isEqualTo(
            new Readiness.Stuck(
                "1/5 Running, Schedulable=False NoSuchDeviceClass: claim template gpu names device"
                    + " class nocls, which does not exist"));
  }

  @Test
  void aQueueThatHasNotAdmittedItYetIsAWaitThatSaysWhy() {
    var readiness =
        Readiness.of(
            job(
                no(
                    WorkloadConditions.ADMITTED,
                    WorkloadConditions.PENDING,
                    "queue research is at its quota of gpu (4 of 4)")));

    assertThat(readiness)
        .isEqualTo(
            new Readiness.Waiting(
                "1/5 Running, Admitted=False Pending: queue research is at its quota of gpu (4 of"
                    + " 4)"));
  }
}
