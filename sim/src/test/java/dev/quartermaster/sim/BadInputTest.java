package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.WorkloadConditions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad input ends in a status condition that says what is wrong, never a silent Pending. */
class BadInputTest {

  private static SimCluster world() {
    var c = new SimCluster(7, WatchFaults.NONE);
    new SimClusterOn(c.api()).world(2, 4);
    Worlds.start(c);
    return c;
  }

  private static Condition condition(SimCluster c, String workload, String type) {
    return c.api()
        .get(Kinds.WORKLOAD, workload)
        .flatMap(w -> Condition.find(w.status().conditions(), type))
        .orElseThrow();
  }

  @Test
  void aMissingDeviceClassIsNamedOnTheWorkloadAndTheClaim() {
    var c = world();
    c.api().create(Worlds.gpuWorkload("a", 1, "h100", 1));
    c.env().advance(Duration.ofSeconds(10));
    var w = condition(c, "a", WorkloadConditions.SCHEDULABLE);
    assertThat(w.status()).isEqualTo(Condition.Status.False);
    assertThat(w.reason()).isEqualTo("NoSuchDeviceClass");
    assertThat(w.message()).contains("'h100'", "group w", "claim template gpu");
    var claim = c.api().get(Kinds.RESOURCE_CLAIM, "a-w-0-gpu").orElseThrow();
    assertThat(Condition.find(claim.status().conditions(), ClaimConditions.ALLOCATED).orElseThrow())
        .extracting(Condition::reason)
        .isEqualTo("NoSuchDeviceClass");
    assertThat(c.api().get(Kinds.TASK, "a-w-0").orElseThrow().status().phase())
        .isEqualTo(TaskPhase.Pending);
  }

  /**
   * A compute domain's tasks each claim IMEX channels of class {@code channel}: without that class
   * the workload is not schedulable, and says so from its first status on (it said {@code
   * Schedulable True} until the allocator had judged its channel claims).
   */
  @Test
  void aDomainWorkloadWithoutTheChannelClassIsNeverSaidSchedulable() {
    var c = world();
    var w = Worlds.gpuWorkload("d", 2, "gpu", 1);
    c.api()
        .create(
            new dev.quartermaster.api.workload.Workload(
                w.metadata(),
                new dev.quartermaster.api.workload.WorkloadSpec(
                    w.spec().groups(), java.util.Optional.of("nvlink")),
                w.status()));
    for (int step = 0; step < 100; step++) {
      c.env().advance(Duration.ofMillis(100));
      c.api()
          .get(Kinds.WORKLOAD, "d")
          .flatMap(x -> Condition.find(x.status().conditions(), WorkloadConditions.SCHEDULABLE))
          .ifPresent(s -> assertThat(s.isTrue()).as("Schedulable: %s", s).isFalse());
    }
    var s = condition(c, "d", WorkloadConditions.SCHEDULABLE);
    assertThat(s.reason()).isEqualTo("NoSuchDeviceClass");
    assertThat(s.message()).contains("'channel'", "compute domain nvlink");
  }

  @Test
  void moreGpusThanAnyNodeHasIsUnsatisfiable() {
    var c = world();
    c.api().create(Worlds.gpuWorkload("b", 1, "gpu", 8));
    c.env().advance(Duration.ofSeconds(10));
    var claim = c.api().get(Kinds.RESOURCE_CLAIM, "b-w-0-gpu").orElseThrow();
    var allocated =
        Condition.find(claim.status().conditions(), ClaimConditions.ALLOCATED).orElseThrow();
    assertThat(allocated.reason()).isEqualTo("Unsatisfiable");
    assertThat(allocated.message()).contains("8 x gpu", "only 4");
    var w = condition(c, "b", WorkloadConditions.SCHEDULABLE);
    assertThat(w.reason()).isEqualTo("Unsatisfiable");
    assertThat(w.message()).contains("b-w-0-gpu");
  }

  @Test
  void anOverlongNameIsRejectedAtApplyNamingTheField() {
    var c = world();
    var longName = "x".repeat(60);
    assertThatThrownBy(() -> c.api().create(Worlds.gpuWorkload(longName, 12, "gpu", 1)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.Invalid);
              assertThat(e.getMessage()).contains("exceed 63 characters");
            });
  }

  @Test
  void aGoodWorkloadIsScheduledWithItsNodeSet() {
    var c = world();
    c.api().create(Worlds.gpuWorkload("ok", 3, "gpu", 2));
    c.env().advance(Duration.ofSeconds(10));
    var tasks = c.api().list(Kinds.TASK).items();
    var scheduled = tasks.stream().filter(t -> t.status().phase() == TaskPhase.Scheduled).toList();
    // 2 nodes x 4 GPUs hold all three 2-GPU tasks.
    assertThat(scheduled).hasSize(3);
    assertThat(scheduled)
        .allMatch(t -> t.spec().node().isPresent() && t.status().reason().equals("Scheduled"));
    assertThat(condition(c, "ok", WorkloadConditions.SCHEDULABLE).isTrue()).isTrue();
  }
}
