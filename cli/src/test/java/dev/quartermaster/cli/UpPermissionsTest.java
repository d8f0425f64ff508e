package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.cli.config.ApiConnector;
import dev.quartermaster.core.net.LoopbackPorts;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Black-box: {@code qm up} in a child JVM, then the modes of what it made. The data dir and the
 * agent's state dir are 0700; the store (with its WAL), the admin token and the state files are
 * 0600; the simulated device nodes are 0600 in 0700 directories. Paths that other users can still
 * read are printed (none is reachable: the data dir is 0700).
 */
@Timeout(180)
class UpPermissionsTest {
  private static final Duration BOUND = Duration.ofSeconds(120);

  @Test
  void upMakesItsDataAndDevicesOwnerOnly() throws Exception {
    var dir = Files.createTempDirectory(Path.of("/tmp"), "qmp");
    var data = dir.resolve("d");
    var log = dir.resolve("up.log");
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var pb =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx384m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "up",
                "--data",
                data.toString(),
                "--listen",
                "127.0.0.1:" + freePort(),
                "--nodes",
                "1",
                "--gpus",
                "2")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    pb.environment().put("HOME", dir.resolve("home").toString());
    var child = pb.start();
    try {
      awaitUp(child, log);
      // A task with a GPU claim: its output (task log) and its claim's CDI spec are state too.
      var task =
          Files.writeString(
              dir.resolve("task.yaml"),
              """
          kind: Task
          metadata:
            name: perm-check
          spec:
            command: [/bin/sh, -c, "echo hello"]
            claims: [single-gpu]
            runtime: exec
          """);
      var cli =
          new CliEnvironment(
              Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString()),
              ExamplesTest.REPO,
              dir.resolve("home"),
              new ByteArrayInputStream(new byte[0]),
              Clock.systemUTC(),
              ApiConnector.http());
      var err = new StringWriter();
      var cl = Main.commandLine(cli);
      cl.setOut(new PrintWriter(new StringWriter(), true));
      cl.setErr(new PrintWriter(err, true));
      assertThat(
              cl.execute(
                  "apply",
                  "-f",
                  "examples/deviceclass.yaml",
                  "-f",
                  "examples/resourceclaim.yaml",
                  "-f",
                  task.toString()))
          .as(err.toString())
          .isZero();
      var stateDir = data.resolve("nodes").resolve("node-1").resolve("state");
      var taskLog = NodeAgentConfig.taskLog(stateDir, "perm-check");
      await(
          "the task's log says hello and its claim's CDI spec is written",
          child,
          log,
          () -> read(taskLog).contains("hello") && hasFile(stateDir.resolve("cdi")));
      System.out.println(
          "task log " + mode(taskLog) + " in " + mode(taskLog.getParent()) + "; CDI specs:");
      try (var specs = Files.list(stateDir.resolve("cdi"))) {
        for (var spec : specs.toList()) {
          System.out.println("  " + mode(spec) + " " + spec.getFileName());
          assertThat(mode(spec)).as(spec.toString()).isEqualTo("rw-------");
        }
      }
      assertThat(mode(taskLog)).isEqualTo("rw-------");

      assertThat(mode(data)).isEqualTo("rwx------");
      for (var name : List.of("store.db", "store.db-wal", "store.db-shm")) {
        assertThat(mode(data.resolve(name))).as(name).isEqualTo("rw-------");
      }
      var nodes = data.resolve("nodes");
      try (var list = Files.list(nodes)) {
        for (var node : list.toList()) {
          var state = node.resolve("state");
          assertThat(mode(state)).as(state.toString()).isEqualTo("rwx------");
          try (var walk = Files.walk(state)) {
            for (var p :
                walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
              assertThat(groupOrOther(p)).as(p + " " + mode(p)).isFalse();
            }
          }
        }
      }
      var devDirs = new ArrayList<Path>();
      var others = new ArrayList<String>();
      int count = 0;
      try (var walk = Files.walk(data)) {
        for (var p : walk.toList()) {
          count++;
          if (p.getFileName().toString().equals("dev") && Files.isDirectory(p)) {
            devDirs.add(p);
          }
          if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
              && p.getFileName().toString().contains("token")) {
            assertThat(mode(p)).as(p.toString()).isEqualTo("rw-------");
          }
          if (!Files.isSymbolicLink(p) && groupOrOther(p)) {
            others.add(mode(p) + " " + data.relativize(p));
          }
        }
      }
      for (var dev : devDirs) {
        assertThat(mode(dev)).as(dev.toString()).isEqualTo("rwx------");
        assertThat(mode(dev.getParent())).as(dev.getParent().toString()).isEqualTo("rwx------");
        // qm up's default: 2,048 IMEX channels, laid out as on a real node, as root-only as the
        // rest
        var channels = dev.resolve("nvidia-caps-imex-channels");
        assertThat(channels.resolve("channel0")).exists();
        assertThat(channels.resolve("channel2047")).exists();
        assertThat(channels.resolve("channel2048")).doesNotExist();
        try (var walk = Files.walk(dev)) {
          for (var node : walk.filter(p -> !p.equals(dev)).toList()) {
            assertThat(mode(node))
                .as(node.toString())
                .isEqualTo(
                    Files.isDirectory(node, LinkOption.NOFOLLOW_LINKS) ? "rwx------" : "rw-------");
          }
        }
      }
      // qm up made the channel device class beside the gpu one
      var classes = new StringWriter();
      var get = Main.commandLine(cli);
      get.setOut(new PrintWriter(classes, true));
      get.setErr(new PrintWriter(err, true));
      assertThat(get.execute("get", "deviceclasses", "channel", "-o", "yaml"))
          .as(err.toString())
          .isZero();
      assertThat(classes.toString()).contains("name: channel").contains("class: channel");
      assertThat(devDirs).isNotEmpty();
      System.out.println(
          "qm up made "
              + count
              + " paths; with group/other bits, behind the 0700 data dir: "
              + others.size());
      others.forEach(o -> System.out.println("  " + o));
    } finally {
      child.destroy();
      if (!child.waitFor(30, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
      deleteTree(dir);
    }
  }

  /**
   * Whether others may touch {@code p}; a file gone since the walk listed it (a run record of a
   * task that ended) cannot be.
   */
  private static boolean groupOrOther(Path p) throws IOException {
    java.util.Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException gone) {
      return false;
    }
    return perms.stream()
        .anyMatch(
            x ->
                !(x == PosixFilePermission.OWNER_READ
                    || x == PosixFilePermission.OWNER_WRITE
                    || x == PosixFilePermission.OWNER_EXECUTE));
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }

  private static void awaitUp(Process child, Path log) throws Exception {
    await("qm up prints 'is up'", child, log, () -> read(log).contains(" is up"));
  }

  private static boolean hasFile(Path dir) {
    try (var list = Files.list(dir)) {
      return list.anyMatch(Files::isRegularFile);
    } catch (IOException e) {
      return false;
    }
  }

  private static void await(
      String what, Process child, Path log, java.util.function.BooleanSupplier done)
      throws Exception {
    var deadline = Instant.now().plus(BOUND);
    while (!done.getAsBoolean()) {
      if (!child.isAlive()) {
        throw new AssertionError("qm up exited " + child.exitValue() + ":\n" + read(log));
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + BOUND + ": " + what + ":\n" + read(log));
      }
      try {
        child.onExit().get(100, TimeUnit.MILLISECONDS);
      } catch (TimeoutException stillRunning) {
        // look again
      }
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
