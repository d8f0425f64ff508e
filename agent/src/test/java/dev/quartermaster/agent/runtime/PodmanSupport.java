package dev.quartermaster.agent.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What the podman tests need: podman that can run a container here (as root, with the flags that
 * work on our machines), a busybox root file system made from {@code /bin/busybox} (Debian's
 * busybox-static; no network image), and a CDI directory podman reads ({@code /var/run/cdi}).
 */
final class PodmanSupport {
  static final Path CDI_DIR = Path.of("/var/run/cdi");
  private static final List<String> APPLETS =
      List.of("sh", "cat", "echo", "sleep", "ls", "touch", "true", "false", "env");
  private static Optional<String> unavailable;

  private PodmanSupport() {}

  static PodmanOptions options() {
    return PodmanOptions.defaults()
        .withGlobalFlags("--cgroup-manager=cgroupfs", "--storage-driver=vfs", "--runtime=runc");
  }

  /** A root file system with busybox and its applets under {@code dir}. */
  static Path busyboxRootfs(Path dir) throws IOException {
    var bin = Files.createDirectories(dir.resolve("bin"));
    Files.copy(Path.of("/bin/busybox"), bin.resolve("busybox"));
    for (var applet : APPLETS) {
      Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
    }
    for (var d : List.of("dev", "proc", "sys", "tmp", "etc", "work")) {
      Files.createDirectories(dir.resolve(d));
    }
    // Else podman links /etc/mtab to /proc/mounts, a link out of the test's temp dir.
    Files.writeString(dir.resolve("etc/mtab"), "");
    return dir;
  }

  /** Why podman tests cannot run here, or empty when they can (probed once per JVM). */
  static synchronized Optional<String> unavailable() {
    if (unavailable == null) {
      unavailable = probe();
    }
    return unavailable;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      for (var p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static Optional<String> probe() {
    if (!Files.isExecutable(Path.of("/bin/busybox"))) {
      return Optional.of(
          "no /bin/busybox (apt-get install busybox-static) for the test root file system");
    }
    try {
      Files.createDirectories(CDI_DIR);
      if (!Files.isWritable(CDI_DIR)) {
        return Optional.of(CDI_DIR + " is not writable (podman tests run as root)");
      }
      var probeDir = Files.createTempDirectory("qm-podman-probe");
      try {
        var root = busyboxRootfs(probeDir);
        var args = new ArrayList<>(options().command());
        args.addAll(List.of("run", "--rm", "--network", "none"));
        options().ulimits().forEach(u -> args.addAll(List.of("--ulimit", u)));
        args.addAll(List.of("--rootfs", root.toString(), "/bin/true"));
        var p = new ProcessBuilder(args).redirectErrorStream(true).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          return Optional.of("podman run did not finish in 180 s");
        }
        var out = new String(p.getInputStream().readAllBytes()).strip();
        return p.exitValue() == 0
            ? Optional.empty()
            : Optional.of(
                "podman cannot run a container here (exit " + p.exitValue() + "): " + out);
      } finally {
        deleteTree(probeDir);
      }
    } catch (IOException e) {
      return Optional.of("podman is not installed (apt-get install podman): " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }
}
