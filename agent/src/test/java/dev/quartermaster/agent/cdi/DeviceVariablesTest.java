package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The composed device environment: from exactly the per-device entries given, in their order. */
class DeviceVariablesTest {
  @Test
  void composesOverSeveralClaimsInOrderAndNamesOneClaimOnlyWhenThereIsOne() {
    var env =
        List.of(
            DeviceVariables.gpuUuid(3, "GPU-c"),
            DeviceVariables.gpuClaimUid(3, "uid-b"),
            DeviceVariables.gpuUuid(0, "GPU-a"),
            DeviceVariables.gpuClaimUid(0, "uid-a"),
            DeviceVariables.channelClaimUid(7, "uid-b"),
            "SOMETHING_ELSE=x");

    assertThat(DeviceVariables.composed(env))
        .containsExactly(
            "QUARTERMASTER_GPU_UUIDS=GPU-c,GPU-a",
            "NVIDIA_VISIBLE_DEVICES=GPU-c,GPU-a",
            "CUDA_VISIBLE_DEVICES=GPU-c,GPU-a",
            "QUARTERMASTER_IMEX_CHANNELS=7",
            "QUARTERMASTER_CLAIM_UIDS=uid-b,uid-a");
    assertThat(DeviceVariables.composed(env.subList(0, 2)))
        .contains("QUARTERMASTER_CLAIM_UID=uid-b");
  }

  @Test
  void aContainerWithoutGpusIsToldSoAndOneWithoutOurDevicesIsToldNothing() {
    assertThat(DeviceVariables.composed(List.of(DeviceVariables.channelClaimUid(2, "uid-c"))))
        .contains(
            "QUARTERMASTER_GPU_UUIDS=",
            "NVIDIA_VISIBLE_DEVICES=void",
            "QUARTERMASTER_IMEX_CHANNELS=2",
            "QUARTERMASTER_CLAIM_UID=uid-c");
    assertThat(DeviceVariables.composed(List.of("QM_GPU=GPU-1"))).isEmpty();
  }
}
