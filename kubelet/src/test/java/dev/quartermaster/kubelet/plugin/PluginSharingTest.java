package dev.quartermaster.kubelet.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.MigMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --share GPU=MODE}: what each value means, and each bad one named with the rule. */
class PluginSharingTest {

  @Test
  void eachModeIsReadPerGpu() {
    var sharing = PluginSharing.parse(List.of("gpu-0=mig", "gpu-1=mps:8", "gpu-2=timeslice:4"));

    assertThat(sharing.mig()).isEqualTo(Map.of("gpu-0", MigMode.Dynamic));
    assertThat(sharing.shared())
        .isEqualTo(Map.of("gpu-1", GpuSharing.mps(8), "gpu-2", GpuSharing.timeSliced(4)));
    assertThat(PluginSharing.parse(List.of())).isEqualTo(PluginSharing.NONE);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "gpu-0                | must be GPU=mig",
        "=mig                 | must be GPU=mig",
        "GPU_0=mig            | must be a device name",
        "gpu-0=mps            | must be GPU=mig",
        "gpu-0=mps:1          | 2 to 48",
        "gpu-0=mps:49         | 2 to 48",
        "gpu-0=timeslice:x    | must be GPU=mig",
        "gpu-0=exclusive:2    | must be GPU=mig",
      })
  void aBadValueIsRefusedNamingItAndTheRule(String value, String rule) {
    assertThatThrownBy(() -> PluginSharing.parse(List.of(value)))
        .isInstanceOf(PluginSharing.Invalid.class)
        .hasMessageContaining("--share '" + value + "'")
        .hasMessageContaining(rule);
  }

  @Test
  void aGpuGivenTwoModesIsRefused() {
    assertThatThrownBy(() -> PluginSharing.parse(List.of("gpu-0=mig", "gpu-0=mps:4")))
        .hasMessageContaining("gpu-0 is given a mode twice");
  }
}
