package dev.quartermaster.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.NvmlMig;
import dev.quartermaster.agent.nvml.NvmlLibrary;
import dev.quartermaster.agent.nvml.NvmlLoad;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which MIG control a real host's agent gets: NVML's only where NVML loads and a GPU has MIG. */
class HostMigChoiceTest {

  @Test
  void aHostWithoutNvmlHasNoMigAsBefore() {
    var tree =
        new HostDeviceTree(
            DeviceRoot.host(), () -> new NvmlLoad.Unavailable("no driver"), Duration.ofSeconds(1));
    assertThat(tree.mig()).isSameAs(MigControl.NONE);
  }

  @Test
  void aHostWithAMigGpuGetsNvmlsControlOnceForTheAgentsLife() {
    var tree = new HostDeviceTree(DeviceRoot.host(), NvmlLibrary::load, Duration.ofSeconds(1));
    var mig = tree.mig();
    assumeTrue(
        mig instanceof NvmlMig,
        "needs libnvidia-ml.so.1 and a MIG-capable GPU (H100/H200/B200): the host got no NVML MIG");
    assertThat(tree.mig()).isSameAs(mig);
  }
}
