package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GpuInformationTest {

  @Test
  void parsesTheDriversInformationFile() {
    var info = GpuInformation.parse(Samples.read("information-v100.txt"));
    assertThat(info.field(GpuInformation.MODEL)).hasValue("Tesla V100-SXM2-16GB");
    assertThat(info.field(GpuInformation.UUID))
        .hasValue("GPU-edfee158-11c1-52b8-0517-92f30e7fac88");
    assertThat(info.field(GpuInformation.BUS_LOCATION)).hasValue("0000:06:00.0");
    assertThat(info.deviceMinor()).hasValue(0);
    assertThat(info.excluded()).isFalse();
    // Real drivers do not report memory; only simulated roots add the line.
    assertThat(info.memoryBytes()).isEmpty();
  }

  @Test
  void splitsAtTheFirstColonOnly() {
    var info = GpuInformation.parse(Samples.read("information-h100.txt"));
    assertThat(info.field(GpuInformation.BUS_LOCATION)).hasValue("0000:2a:00.0");
    assertThat(info.deviceMinor()).hasValue(3);
  }

  @Test
  void readsExclusionAndRejectsBadMinors() {
    assertThat(GpuInformation.parse(Samples.read("information-excluded.txt")).excluded()).isTrue();
    assertThat(GpuInformation.parse("Device Minor: seven\n").deviceMinor()).isEmpty();
    assertThat(GpuInformation.parse("Device Minor: -1\n").deviceMinor()).isEmpty();
  }
}
