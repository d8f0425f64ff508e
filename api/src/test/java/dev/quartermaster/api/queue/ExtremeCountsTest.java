package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Issue 43, item 7: each field within its limit, their products and sums are not. The counts at the
 * edges of an {@code int}: a workload whose demand wrapped to 4, two quotas of {@code
 * Integer.MAX_VALUE} whose sum stopped their cohort, and a priority of {@code Integer.MIN_VALUE}.
 */
class ExtremeCountsTest {
  private static final TaskTemplate RUN =
      new TaskTemplate(List.of("x"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());

  /** {@code templates} claim templates of {@code requests} requests of {@code count} GPUs each. */
  private static WorkerGroup group(
      String name, int replicas, int templates, int requests, int count) {
    var claims = new ArrayList<ClaimTemplate>();
    for (int t = 0; t < templates; t++) {
      var asks = new ArrayList<DeviceRequest>();
      for (int r = 0; r < requests; r++) {
        asks.add(new DeviceRequest("r" + r, "gpu", count, List.of()));
      }
      claims.add(new ClaimTemplate("t" + t, new ResourceClaimSpec(asks, Optional.empty())));
    }
    return new WorkerGroup(name, replicas, RUN, claims, RestartPolicy.OnFailure);
  }

  /**
   * As probed: 6 groups × 10,000 replicas × 64 claim templates × 16 requests × count 64, plus 5,536
   * more such replicas and one 4-GPU replica: 4,294,967,300 GPUs, which is 2³² + 4.
   */
  private static WorkloadSpec fourBillionGpus() {
    var groups = new ArrayList<WorkerGroup>();
    for (int g = 0; g < 6; g++) {
      groups.add(group("g" + g, 10_000, 64, 16, 64));
    }
    groups.add(group("g6", 5_536, 64, 16, 64));
    groups.add(group("g7", 1, 1, 1, 4));
    return new WorkloadSpec(groups, Optional.empty());
  }

  private static QueueSpec quota(int gpus) {
    return new QueueSpec(
        Optional.of("c"), Map.of("gpu", gpus), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);
  }

  private static Admitted uses(String queue, int gpus) {
    return new Admitted("u-" + queue, queue, Map.of("w", 1), Map.of("gpu", gpus), 0, Instant.EPOCH);
  }

  @Test
  void aDemandPastAnIntReadsAsTooBigNeverAsSmall() {
    var spec = fourBillionGpus();
    assertThat(Demand.devices(spec)).isEqualTo(4_294_967_300L);
    assertThat(Demand.of(spec)).isEqualTo(Map.of("gpu", Integer.MAX_VALUE));
    assertThat(CohortQuota.of(Map.of("a", quota(4)), Map.of()).plus("a", Demand.of(spec)).breach())
        .isPresent();
  }

  @Test
  void aWorkloadAsksForAtMostAMillionDevices() {
    var w = new Workload(ObjectMeta.named("huge"), fourBillionGpus(), null);
    assertThat(ObjectValidator.validate(w))
        .contains(
            new Violation(
                "spec.groups",
                "ask for 4294967300 devices in all (each group's replicas × its claim templates'"
                    + " request counts); a workload asks for at most 1000000"));
    // At the bound it is fine: 1,000 replicas of 1,000 GPUs.
    var atBound =
        new Workload(
            ObjectMeta.named("big"),
            new WorkloadSpec(List.of(group("g", 1_000, 20, 1, 50)), Optional.empty()),
            null);
    assertThat(Demand.devices(atBound.spec())).isEqualTo(1_000_000L);
    assertThat(ObjectValidator.validate(atBound)).isEmpty();
  }

  @Test
  void twoQueuesOfTheLargestQuotaStillHaveRoom() {
    var max = Integer.MAX_VALUE;
    var q = CohortQuota.of(Map.of("a", quota(max), "b", quota(max)), Map.of("x", uses("a", 4)));
    assertThat(q.breach()).isEmpty();
    assertThat(q.plus("b", Map.of("gpu", 4)).breach()).isEmpty();
    assertThat(q.room("a", "gpu")).isEqualTo(OptionalInt.of(max));
    assertThat(q.lendable("gpu")).isEqualTo(max);
  }

  /** Usages summed past an int: a cohort of quota 2 × MAX_VALUE - 2 cannot hold 2 × MAX_VALUE. */
  @Test
  void usagesSummedPastAnIntAreCountedExactly() {
    var max = Integer.MAX_VALUE;
    var admitted =
        Map.of(
            "x",
            uses("a", max),
            "y",
            new Admitted("u-y", "a", Map.of("w", 1), Map.of("gpu", max), 0, Instant.EPOCH));
    var q = CohortQuota.of(Map.of("a", quota(max - 1), "b", quota(max - 1)), admitted);
    assertThat(q.breach())
        .hasValue("gpu: the cohort's queues borrow 2147483648, and lend only 2147483646");
    assertThat(q.used("a", "gpu")).isEqualTo(max);
  }

  @Test
  void aPriorityIsWithinPlusOrMinusABillion() {
    for (int value : new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, -1_000_000_001}) {
      var p = new PriorityClass(ObjectMeta.named("p"), new PriorityClassSpec(value, ""), null);
      assertThat(ObjectValidator.validate(p))
          .as("%d", value)
          .containsExactly(new Violation("spec.value", "must be from -1000000000 to 1000000000"));
    }
    for (int value : new int[] {-1_000_000_000, 0, 1_000_000_000}) {
      var p = new PriorityClass(ObjectMeta.named("p"), new PriorityClassSpec(value, ""), null);
      assertThat(ObjectValidator.validate(p)).as("%d", value).isEmpty();
    }
  }
}
