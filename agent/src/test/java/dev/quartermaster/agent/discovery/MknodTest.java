package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MknodTest {
  @TempDir Path dir;

  @Test
  void packsDeviceNumbersAsTheKernelUnpacksThem() {
    for (var n :
        new DeviceNumber[] {
          new DeviceNumber(1, 3),
          new DeviceNumber(10, 258),
          new DeviceNumber(511, 2047),
          new DeviceNumber(4095, 1_048_575),
          new DeviceNumber(4096, 256)
        }) {
      assertThat(DeviceNumber.fromRdev(Mknod.rdev(n))).isEqualTo(n);
    }
  }

  @Test
  void createsTheNumberAndModeAskedFor() throws Exception {
    assumeTrue(Samples.canMknod(dir), "needs mknod (run as root)");
    var channel = dir.resolve("channel2047");
    Mknod.charDevice(channel, new DeviceNumber(511, 2047), Mknod.SIMULATED_MODE);
    var open = dir.resolve("open");
    Mknod.charDevice(open, new DeviceNumber(10, 258)); // 0666 despite any umask

    assertThat(NodeStat.of(channel))
        .isInstanceOfSatisfying(
            NodeStat.CharDevice.class,
            c -> {
              assertThat(c.number()).isEqualTo(new DeviceNumber(511, 2047));
              assertThat(c.permissions()).isEqualTo(0600);
            });
    assertThat(NodeStat.of(open))
        .isInstanceOfSatisfying(
            NodeStat.CharDevice.class, c -> assertThat(c.permissions()).isEqualTo(0666));
  }

  @Test
  void aFailureNamesThePathAndTheReason() {
    var nowhere = dir.resolve("no-such-dir/channel0");
    assertThatThrownBy(
            () -> Mknod.charDevice(nowhere, new DeviceNumber(10, 229), Mknod.SIMULATED_MODE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(nowhere.toString())
        .hasMessageContaining("No such file or directory");
  }
}
