package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DeviceNumberTest {

  @Test
  void decodesLinuxRdev() {
    assertThat(DeviceNumber.fromRdev(259)).isEqualTo(new DeviceNumber(1, 3));
    assertThat(DeviceNumber.fromRdev(2789)).isEqualTo(new DeviceNumber(10, 229));
    // minor above 255: its high bits live above the major's low bits
    assertThat(DeviceNumber.fromRdev(1051138)).isEqualTo(new DeviceNumber(10, 258));
    // a dynamic major above 255 (nvidia-uvm is often 5xx), minor 1
    long rdev = ((509L & 0xfff) << 8) | 1;
    assertThat(DeviceNumber.fromRdev(rdev)).isEqualTo(new DeviceNumber(509, 1));
  }

  @Test
  void readsTheHostsDevNull() {
    assertThat(NodeStat.of(Path.of("/dev/null")))
        .isInstanceOfSatisfying(
            NodeStat.CharDevice.class,
            c -> assertThat(c.number()).isEqualTo(new DeviceNumber(1, 3)));
    assertThat(NodeStat.of(Path.of("/no/such/node"))).isInstanceOf(NodeStat.Missing.class);
    assertThat(NodeStat.of(Path.of("/"))).isEqualTo(new NodeStat.NotCharDevice("a directory"));
  }

  @Test
  void parsesAndRejects() {
    assertThat(DeviceNumber.parse("195:255")).isEqualTo(new DeviceNumber(195, 255));
    assertThatThrownBy(() -> DeviceNumber.parse("195")).hasMessageContaining("major:minor");
  }

  @Test
  void picksStandInsFromProcMiscInPreferenceOrder() {
    var misc =
        "234 btrfs-control\n259 cpu_dma_latency\n200 tun\n237 loop-control\n229 fuse\n235 autofs\n";
    assertThat(StandIns.fromProcMisc(misc))
        .containsExactly(
            new DeviceNumber(10, 229),
            new DeviceNumber(10, 235),
            new DeviceNumber(10, 237),
            new DeviceNumber(10, 234));
  }
}
