package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.nvml.NvmlException;
import dev.quartermaster.agent.nvml.NvmlReturn;
import org.junit.jupiter.api.Test;

/** The host's capability minors and NVML's refusals, read without a GPU. */
class MigMinorsTest {

  @Test
  void readsTheGiAndCiAccessMinorsAndSkipsWhatIsNotAMinor() {
    var minors =
        MigMinors.parse(
            """
            config 1
            monitor 2
            gpu0/gi1/access 12
            gpu0/gi1/ci0/access 13
            gpu1/gi13/access 147
            gpu1/gi13/ci0/access 148
            a line the driver added later
            gpu2/gi2/access twelve
            """);
    assertThat(minors.gpuInstance(0, 1)).hasValue(12);
    assertThat(minors.computeInstance(0, 1, 0)).hasValue(13);
    assertThat(minors.gpuInstance(1, 13)).hasValue(147);
    assertThat(minors.computeInstance(1, 13, 0)).hasValue(148);
    assertThat(minors.gpuInstance(0, 2)).isEmpty();
    assertThat(minors.gpuInstance(2, 2)).isEmpty();
  }

  @Test
  void nvmlRefusalsMapToWhatTheAgentActsOn() {
    assertThat(refusal(NvmlReturn.IN_USE)).isEqualTo(MigRefusedException.Refusal.InUse);
    assertThat(refusal(NvmlReturn.INSUFFICIENT_RESOURCES))
        .isEqualTo(MigRefusedException.Refusal.InsufficientResources);
    assertThat(refusal(NvmlReturn.NOT_SUPPORTED))
        .isEqualTo(MigRefusedException.Refusal.NotSupported);
    assertThat(refusal(NvmlReturn.NO_PERMISSION))
        .isEqualTo(MigRefusedException.Refusal.NoPermission);
    assertThat(refusal(NvmlReturn.RESET_REQUIRED))
        .isEqualTo(MigRefusedException.Refusal.ResetRequired);
    assertThat(refusal(NvmlReturn.GPU_IS_LOST)).isEqualTo(MigRefusedException.Refusal.Failed);
    assertThat(
            MigRefusedException.of(
                    new NvmlException("nvmlGpuInstanceDestroy", NvmlReturn.IN_USE, "In use"))
                .getMessage())
        .isEqualTo("nvmlGpuInstanceDestroy: In use (IN_USE)");
    var named =
        MigRefusedException.of(
            new NvmlException(
                "nvmlDeviceCreateGpuInstanceWithPlacement",
                NvmlReturn.INSUFFICIENT_RESOURCES,
                "Insufficient Resources"),
            "gpu 0 (NVIDIA H200): creating 3g.71gb@4");
    assertThat(named.refusal()).isEqualTo(MigRefusedException.Refusal.InsufficientResources);
    assertThat(named.getMessage())
        .isEqualTo(
            "gpu 0 (NVIDIA H200): creating 3g.71gb@4: nvmlDeviceCreateGpuInstanceWithPlacement:"
                + " Insufficient Resources (INSUFFICIENT_RESOURCES)");
  }

  private static MigRefusedException.Refusal refusal(int code) {
    return MigRefusedException.of(new NvmlException("call", code, "text")).refusal();
  }
}
