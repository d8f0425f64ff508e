package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcDevicesTest {

  @Test
  void newDriversNameMajor195Nvidia() {
    var d = ProcDevices.parse(Samples.read("proc-devices-550.txt"));
    assertThat(d.nvidiaMajor()).hasValue(195);
    assertThat(d.major(ProcDevices.NVIDIA_FRONTEND)).isEmpty();
    assertThat(d.uvmMajor()).hasValue(509);
    assertThat(d.major(ProcDevices.NVIDIA_CAPS)).hasValue(510);
  }

  @Test
  void olderDriversNameItNvidiaFrontend() {
    var d = ProcDevices.parse(Samples.read("proc-devices-470.txt"));
    assertThat(d.major(ProcDevices.NVIDIA)).isEmpty();
    assertThat(d.nvidiaMajor()).hasValue(195);
    assertThat(d.uvmMajor()).hasValue(237);
  }

  @Test
  void blockDevicesAreNotCharDevices() {
    var d = ProcDevices.parse(Samples.read("proc-devices-550.txt"));
    assertThat(d.charMajors())
        .doesNotContainKey("nvidia-not-a-char-device")
        .doesNotContainKey("sd");
  }

  @Test
  void uvmMajorIsAbsentWhenTheModuleIsNotLoaded() {
    var d = ProcDevices.parse(Samples.read("proc-devices-no-uvm.txt"));
    assertThat(d.nvidiaMajor()).hasValue(195);
    assertThat(d.uvmMajor()).isEmpty();
  }

  @Test
  void noDriverMeansNoNvidiaMajors(@TempDir Path dir) throws Exception {
    assertThat(ProcDevices.parse(Samples.read("proc-devices-no-driver.txt")).nvidiaMajor())
        .isEmpty();
    assertThat(ProcDevices.read(dir.resolve("absent")).charMajors()).isEmpty();
  }

  @Test
  void driverNumberingFollowsNvidiaModprobe() {
    var n =
        new DriverNumbering(
            ProcDevices.parse(Samples.read("proc-devices-550.txt")), Path.of("/proc/devices"));
    assertThat(n.control(ControlNode.NVIDIACTL)).isEqualTo(known(195, 255));
    assertThat(n.control(ControlNode.NVIDIA_MODESET)).isEqualTo(known(195, 254));
    assertThat(n.control(ControlNode.NVIDIA_UVM)).isEqualTo(known(509, 0));
    assertThat(n.control(ControlNode.NVIDIA_UVM_TOOLS)).isEqualTo(known(509, 1));
    assertThat(n.gpu(3)).isEqualTo(known(195, 3));

    var noUvm =
        new DriverNumbering(
            ProcDevices.parse(Samples.read("proc-devices-no-uvm.txt")), Path.of("/proc/devices"));
    assertThat(noUvm.control(ControlNode.NVIDIA_UVM))
        .isInstanceOfSatisfying(
            Numbering.Expected.Unknown.class,
            u -> assertThat(u.why()).contains("nvidia-uvm").contains("/proc/devices"));
  }

  private static Numbering.Expected known(long major, long minor) {
    return new Numbering.Expected.Known(NodeExpectation.charDevice(major, minor));
  }
}
