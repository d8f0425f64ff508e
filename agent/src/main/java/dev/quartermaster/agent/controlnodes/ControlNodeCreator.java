package dev.quartermaster.agent.controlnodes;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.Mknod;
import dev.quartermaster.agent.discovery.NodeExpectation;
import dev.quartermaster.agent.discovery.NodeVerifier;
import dev.quartermaster.agent.discovery.Numbering;
import dev.quartermaster.agent.discovery.StandInNumbering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --create-control-nodes}: creates the control nodes that are missing or wrong, as {@code
 * nvidia-modprobe} does: majors from {@code /proc/devices} (nvidia, else nvidia-frontend; the
 * dynamic nvidia-uvm), minors ctl 255, modeset 254, uvm 0, uvm-tools 1, mode 0666. Like
 * nvidia-modprobe (and unlike the toolkit, which skips an existing path), a path holding something
 * else is replaced. It does not load kernel modules: a node whose driver is not registered cannot
 * be created, and that is reported. Needs CAP_MKNOD.
 */
public final class ControlNodeCreator {
  private final Path root;

  public ControlNodeCreator(Path root) {
    this.root = root.toAbsolutePath();
  }

  /** What one run did: the paths it created, and each one it could not, with why. */
  public record Result(List<Path> created, List<String> failures) {
    public Result {
      created = List.copyOf(created);
      failures = List.copyOf(failures);
    }
  }

  public Result createMissing() {
    var created = new ArrayList<Path>();
    var failures = new ArrayList<String>();
    Numbering numbering;
    try {
      numbering = Numbering.load(root);
    } catch (IOException | IllegalArgumentException e) {
      return new Result(
          created, List.of("cannot read the device numbers under " + root + ": " + e.getMessage()));
    }
    var dev = root.resolve("dev");
    for (var node : ControlNode.values()) {
      var path = dev.resolve(node.fileName());
      switch (numbering.control(node)) {
        case Numbering.Expected.Unknown u -> failures.add("cannot create " + path + ": " + u.why());
        case Numbering.Expected.Known k -> {
          if (NodeVerifier.verify(node.containerPath(), path, k.expectation())
              instanceof NodeVerifier.Verdict.Bad) {
            try {
              create(path, k.expectation(), modeFor(numbering));
              created.add(path);
            } catch (IOException e) {
              failures.add("cannot create " + path + ": " + e.getMessage());
            }
          }
        }
      }
    }
    return new Result(created, failures);
  }

  /**
   * NVIDIA's 0666 for the driver's own numbers; root-only for a simulated root's stand-ins, which
   * are real host devices that other users must not reach through them.
   */
  private static int modeFor(Numbering numbering) {
    return numbering instanceof StandInNumbering ? Mknod.SIMULATED_MODE : Mknod.DRIVER_MODE;
  }

  private static void create(Path path, NodeExpectation expected, int mode) throws IOException {
    Files.createDirectories(path.getParent());
    Files.deleteIfExists(path);
    if (expected.regularFileAccepted()) {
      Files.writeString(path, "stand-in for a character device " + expected.number() + "\n");
    } else {
      Mknod.charDevice(path, expected.number(), mode);
    }
  }
}
