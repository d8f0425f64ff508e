package dev.quartermaster.agent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.DiscoveryResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The real library: runs where libnvidia-ml.so.1 loads (a GPU machine), skips cleanly elsewhere.
 */
class NvmlLibraryTest {

  @Test
  void anAbsentLibraryIsUnavailableWithTheReason() {
    var load = NvmlLibrary.load("libnvidia-ml-absent-for-test.so.1");
    assertThat(load)
        .isInstanceOfSatisfying(
            NvmlLoad.Unavailable.class,
            u -> assertThat(u.reason()).contains("cannot load libnvidia-ml-absent-for-test.so.1"));
  }

  @Test
  void discoveryWithoutTheLibraryIsUnavailableNotACrash() {
    assumeTrue(
        NvmlLibrary.load() instanceof NvmlLoad.Unavailable, "libnvidia-ml.so.1 is present here");
    var result = new NvmlDiscovery(NvmlLibrary::load, Path.of("/")).discover();
    assertThat(result)
        .isInstanceOfSatisfying(
            DiscoveryResult.Unavailable.class,
            u -> assertThat(u.reason()).contains(NvmlLibrary.LIBRARY));
  }

  @Test
  void theRealLibraryListsItsGpus() throws Exception {
    var load = NvmlLibrary.load();
    assumeTrue(
        load instanceof NvmlLoad.Loaded,
        () -> "no NVML here: " + ((NvmlLoad.Unavailable) load).reason());
    try (var nvml = ((NvmlLoad.Loaded) load).library()) {
      nvml.init();
      try {
        int count = nvml.deviceCount();
        assertThat(count).isNotNegative();
        for (int i = 0; i < count; i++) {
          var device = nvml.handleByIndex(i);
          assertThat(nvml.uuid(device)).startsWith("GPU-");
          assertThat(nvml.deviceName(device)).isNotBlank();
          assertThat(nvml.memoryTotal(device)).isPositive();
          assertThat(nvml.minorNumber(device)).isNotNegative();
        }
      } finally {
        nvml.shutdown();
      }
    }
    var found = new NvmlDiscovery(NvmlLibrary::load, Path.of("/")).discover();
    assertThat(found).isInstanceOf(DiscoveryResult.Found.class);
  }
}
