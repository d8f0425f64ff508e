package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a workload asks of its queue: its claim templates, and its compute domain's channels. */
class DemandTest {
  private static WorkloadSpec spec(Optional<String> domain) {
    return spec(domain, "gpu");
  }

  private static WorkloadSpec spec(Optional<String> domain, String deviceClass) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", deviceClass, 2, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            3,
            new TaskTemplate(List.of("x"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.OnFailure);
    return new WorkloadSpec(List.of(group), domain);
  }

  /** MPS shares cost their count, compute and memory, per replica: a quota may limit any. */
  @Test
  void mpsSharesAreCountedByCountComputeAndMemory() {
    var claim =
        new ClaimTemplate(
            "share",
            new ResourceClaimSpec(
                List.of(
                    new DeviceRequest(
                        "s",
                        "mps",
                        1,
                        List.of(),
                        Optional.of(new dev.quartermaster.api.claim.ShareRequest(30, "20Gi")))),
                Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            3,
            new TaskTemplate(List.of("x"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.OnFailure);
    assertThat(Demand.of(new WorkloadSpec(List.of(group), Optional.empty())))
        .isEqualTo(Map.of("mps", 3, "mps-compute-percent", 90, "mps-memory-gib", 60));
  }

  @Test
  void everyReplicasClaimTemplatesAreCounted() {
    assertThat(Demand.of(spec(Optional.empty()))).isEqualTo(Map.of("gpu", 6));
  }

  /** A quota of channels limits compute-domain jobs: each task's channel claim counts. */
  @Test
  void aComputeDomainsChannelsAreCountedPerTask() {
    assertThat(Demand.of(spec(Optional.of("imex")))).isEqualTo(Map.of("gpu", 6, "channel", 3));
    assertThat(Demand.of(spec(Optional.of("imex")), d -> d.equals("imex") ? 2 : 1))
        .isEqualTo(Map.of("gpu", 6, "channel", 6));
  }

  /**
   * MIG slices are counted per device class as GPUs are: a queue's {@code mig-1g.18gb: 14} limits
   * the slices its workloads take of that profile, each slice one.
   */
  @Test
  void slicesAreCountedPerProfileClass() {
    assertThat(Demand.of(spec(Optional.empty(), "mig-1g.18gb")))
        .isEqualTo(Map.of("mig-1g.18gb", 6));
  }

  /**
   * A queue may also count MIG compute slices, any profile: each slice costs its class's compute
   * slices ({@link dev.quartermaster.api.device.mig.MigCharge}) under {@code mig-compute-slices},
   * beside its class's own count.
   */
  @Test
  void slicesAreCountedInComputeSlicesToo() {
    assertThat(Demand.of(spec(Optional.empty(), "mig-3g.71gb"), d -> 1, c -> 3))
        .isEqualTo(Map.of("mig-3g.71gb", 6, "mig-compute-slices", 18));
    assertThat(Demand.of(spec(Optional.empty(), "gpu"), d -> 1, c -> 0))
        .as("no MIG class, no compute-slice count")
        .isEqualTo(Map.of("gpu", 6));
  }
}
