package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A CDI spec file on disk, as any bytes, beside a valid one: {@link CdiResolver#resolve} gives the
 * edits or an {@link CdiResolver.UnresolvableException} naming the device (and the spec file, where
 * the spec is at fault), never another throwable. A broken spec never hides the valid one's
 * devices.
 */
class CdiSpecFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GOOD_NAME = "quartermaster.dev/gpu=uid-good-gpu-0";
  private static final String GOOD =
      """
      {"cdiVersion": "0.5.0", "kind": "quartermaster.dev/gpu",
       "devices": [{"name": "uid-good-gpu-0", "containerEdits": {"deviceNodes": [
         {"path": "/dev/nvidia0", "type": "c", "major": 195, "minor": 0, "permissions": "rw"}]}}],
       "containerEdits": {"env": ["QUARTERMASTER_CLAIM_UID=uid-good"]}}
      """;
  private static final Path ETC = tempDir("etc");
  private static final Path RUN = tempDir("run");

  static {
    try {
      Files.writeString(ETC.resolve("quartermaster.dev-gpu_uid-good.json"), GOOD);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest
  void specFile(byte[] bytes) throws IOException {
    Files.write(RUN.resolve("quartermaster.dev-gpu_fuzz.json"), bytes);
    var resolver = new CdiResolver(List.of(ETC, RUN));
    for (var name : namesIn(bytes)) {
      try {
        var edits = resolver.resolve(List.of(name));
        assertThat(edits.deviceNodes()).allSatisfy(n -> assertThat(n.path()).startsWith("/"));
        assertThat(edits.env()).doesNotContainNull();
      } catch (CdiResolver.UnresolvableException e) {
        assertThat(e.getMessage()).contains(name);
      }
    }
    if (!namesIn(bytes).contains(GOOD_NAME)) {
      try {
        assertThat(resolver.resolve(List.of(GOOD_NAME)).deviceNodes())
            .extracting(CdiDeviceNode::path)
            .containsExactly("/dev/nvidia0");
      } catch (CdiResolver.UnresolvableException e) {
        throw new AssertionError(
            "a broken spec beside it hid a valid device: " + e.getMessage(), e);
      }
    }
  }

  /**
   * The qualified names the spec means to define (and a malformed one), as a runtime would ask for
   * them.
   */
  private static List<String> namesIn(byte[] bytes) {
    var names = new ArrayList<String>(List.of("quartermaster.dev/gpu=nope"));
    try {
      var spec = JSON.readTree(bytes);
      if (spec != null) {
        for (var device : spec.path("devices")) {
          names.add(spec.path("kind").asText("") + "=" + device.path("name").asText(""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: only the fixed names
    }
    return names;
  }

  private static Path tempDir(String name) {
    try {
      return Files.createTempDirectory("qm-cdi-fuzz-" + name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
