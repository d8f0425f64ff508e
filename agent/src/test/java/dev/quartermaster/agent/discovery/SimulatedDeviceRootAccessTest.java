package dev.quartermaster.agent.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A simulated root's nodes alias real host devices, so no user but root may open them: nodes 0600
 * in a 0700 tree, proved by opening them as {@code nobody} in a child process.
 */
class SimulatedDeviceRootAccessTest {
  private static final int NOBODY = 65534;

  @TempDir Path dir;

  @Test
  void nodesAre0600InA0700Tree() throws Exception {
    var sim = charDeviceRoot();

    assertThat(mode(sim.root())).isEqualTo("rwx------");
    assertThat(mode(sim.devDir())).isEqualTo("rwx------");
    assertThat(mode(sim.channelDir())).isEqualTo("rwx------");
    for (var node : nodes(sim)) {
      assertThat(NodeStat.of(node))
          .isInstanceOfSatisfying(
              NodeStat.CharDevice.class,
              c -> assertThat(c.permissions()).as(node.toString()).isEqualTo(0600));
    }
  }

  @Test
  void anUnprivilegedUserCannotOpenAnyNode() throws Exception {
    var sim = charDeviceRoot();
    var asNobody = asNobody();
    // Controls: the harness must really run as nobody and really be able to open what nobody may.
    var world = Files.writeString(Files.createTempFile("qm-world", ".txt"), "x");
    try {
      Files.setPosixFilePermissions(world, PosixFilePermissions.fromString("rw-rw-rw-"));
      assertThat(run(asNobody, "id -u")).isEqualTo(new Outcome(0, Integer.toString(NOBODY)));
      assertThat(openAsNobody(asNobody, world).exit())
          .as("nobody opens a world-writable file read-write")
          .isZero();
    } finally {
      Files.delete(world);
    }

    var nodes = nodes(sim);
    assertThat(nodes)
        .as("IMEX channel nodes are among those tried")
        .contains(sim.channelPath(0), sim.channelPath(15));
    for (var node : nodes) {
      var outcome = openAsNobody(asNobody, node);
      assertThat(outcome.exit())
          .as("exit of opening %s as nobody: %s", node, outcome.output())
          .isNotZero();
      assertThat(outcome.output()).as(node.toString()).contains("Permission denied");
    }
  }

  @Test
  void opensOfAnOlderWideRootAreTightened() throws Exception {
    var sim = charDeviceRoot();
    Files.setPosixFilePermissions(sim.root(), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(sim.devDir(), PosixFilePermissions.fromString("rwxr-xr-x"));
    var ctl = sim.nodePath(ControlNode.NVIDIACTL);
    Files.setPosixFilePermissions(ctl, PosixFilePermissions.fromString("rw-rw-rw-"));
    Files.setPosixFilePermissions(sim.channelDir(), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(sim.channelPath(3), PosixFilePermissions.fromString("rw-rw-rw-"));

    var again = SimulatedDeviceRoot.open(sim.root());

    assertThat(mode(again.root())).isEqualTo("rwx------");
    assertThat(mode(again.devDir())).isEqualTo("rwx------");
    assertThat(mode(ctl)).isEqualTo("rw-------");
    assertThat(mode(again.channelDir())).isEqualTo("rwx------");
    assertThat(mode(again.channelPath(3))).isEqualTo("rw-------");
  }

  private SimulatedDeviceRoot charDeviceRoot() throws Exception {
    assumeTrue(Samples.canMknod(dir), "needs mknod (run as root)");
    var sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(2).channels(16).build();
    assumeTrue(sim.charDevices(), () -> "no stand-ins here: " + sim.fallbackReason().orElse(""));
    return sim;
  }

  /** Every node under dev/, the IMEX channels' directory included (not the directory itself). */
  private static List<Path> nodes(SimulatedDeviceRoot sim) throws Exception {
    try (var list = Files.walk(sim.devDir())) {
      var out = list.filter(p -> !Files.isDirectory(p)).sorted().toList();
      assertThat(out).isNotEmpty();
      return out;
    }
  }

  /**
   * The command prefix that runs as nobody; a missing tool skips, except under CI=true where it
   * fails.
   */
  private static List<String> asNobody() {
    boolean root = "root".equals(System.getProperty("user.name"));
    boolean ci = "true".equals(System.getenv("CI"));
    if (!root) {
      assumeTrue(false, "needs root to switch to nobody");
    }
    for (var dirName : List.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv")) {
      if (Files.isExecutable(Path.of(dirName))) {
        return List.of(dirName, "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
      }
    }
    var message =
        "setpriv (util-linux) is not installed: cannot open the nodes as an unprivileged user";
    if (ci) {
      fail(message + " (CI=true: a missing tool fails)");
    }
    assumeTrue(false, message);
    throw new AssertionError("unreachable");
  }

  private static Outcome openAsNobody(List<String> asNobody, Path path) throws Exception {
    // Read-write, as the finding did; the path travels as an argument, never in the script.
    var command = new ArrayList<>(asNobody);
    command.addAll(List.of("/bin/sh", "-c", "exec 3<>\"$1\"", "qm-open", path.toString()));
    return run(command);
  }

  private static Outcome run(List<String> asNobody, String script) throws Exception {
    var command = new ArrayList<>(asNobody);
    command.addAll(List.of("/bin/sh", "-c", script));
    return run(command);
  }

  private static Outcome run(List<String> command) throws Exception {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("no answer from " + command);
    }
    return new Outcome(process.exitValue(), output);
  }

  private record Outcome(int exit, String output) {}

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
