package dev.quartermaster.agent.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes CDI specs for tests (the agent's own writer lives in the cdi package): one device with the
 * given nodes ({@code type c}, major, minor, hostPath) at cdiVersion 0.5.0 (what Debian's podman
 * 4.3.1 accepts with hostPath). Vendor {@code test.quartermaster.dev}, so the agent's writer never
 * mistakes these files for its own.
 */
final class TestSpecs {
  static final String KIND = "test.quartermaster.dev/gpu";

  private TestSpecs() {}

  /** Writes {@code <dir>/test.quartermaster.dev-gpu_<device>.json}; returns the qualified name. */
  static String write(
      Path dir, String device, List<VerifiedNode> nodes, List<String> env, String permissions)
      throws IOException {
    var f = JsonNodeFactory.instance;
    var spec = f.objectNode();
    spec.put("cdiVersion", "0.5.0");
    spec.put("kind", KIND);
    var d = spec.putArray("devices").addObject();
    d.put("name", device);
    var deviceNodes = d.putObject("containerEdits").putArray("deviceNodes");
    for (var n : nodes) {
      var node = deviceNodes.addObject();
      node.put("path", n.path());
      node.put("hostPath", n.hostPath().toString());
      node.put("type", "c");
      node.put("major", n.number().major());
      node.put("minor", n.number().minor());
      node.put("permissions", permissions);
    }
    var envArray = spec.putObject("containerEdits").putArray("env");
    env.forEach(envArray::add);
    Files.createDirectories(dir);
    Files.write(
        file(dir, device),
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(spec));
    return KIND + "=" + device;
  }

  static Path file(Path dir, String device) {
    return dir.resolve("test.quartermaster.dev-gpu_" + device + ".json");
  }
}
