package dev.quartermaster.kubelet.real;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The cluster's kubelet as a process ({@code bench/kubelet/cluster-up.sh} started it and wrote its
 * pid to {@code <cluster>/pids/kubelet.pid}): when it started, and a restart — stopped with
 * SIGTERM, started again with the same command line, environment and log.
 *
 * <p>The kubelet's DRA manager unprepares the claims of pods no longer active every {@link
 * #RECONCILE} from its start ({@code reconcileLoop}), so its start time says when the next tick is,
 * to within the moment the loop began.
 */
final class KubeletProcess {
  /** The DRA manager's reconcile period. */
  static final Duration RECONCILE = Duration.ofSeconds(60);

  private final Path pidFile;
  private final Path log;

  KubeletProcess(Cluster cluster) {
    this.pidFile = cluster.dir().resolve("pids").resolve("kubelet.pid");
    this.log = cluster.dir().resolve("logs").resolve("kubelet.log");
  }

  private ProcessHandle handle() throws IOException {
    var pid = Long.parseLong(Files.readString(pidFile).strip());
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .orElseThrow(
            () -> new IllegalStateException("the kubelet (pid " + pid + ") is not running"));
  }

  /** When the running kubelet started. */
  Instant started() throws IOException {
    return handle().info().startInstant().orElseThrow();
  }

  /**
   * The next reconcile tick after {@code now}, as counted from the kubelet's start (the loop starts
   * a moment after the process: the harness sweeps offsets around this to cover that).
   */
  Instant nextReconcile(Instant now) throws IOException {
    var start = started();
    long periods = Duration.between(start, now).toMillis() / RECONCILE.toMillis() + 1;
    return start.plus(RECONCILE.multipliedBy(periods));
  }

  /** Stops the kubelet (SIGTERM, then SIGKILL after 30 s) and starts it again as it was. */
  void restart() throws Exception {
    var old = handle();
    var pid = old.pid();
    var command = split(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")));
    var environment = split(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")));
    old.destroy();
    try {
      old.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      old.destroyForcibly();
      old.onExit().get();
    }
    var builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().clear();
    for (var entry : environment) {
      var eq = entry.indexOf('=');
      if (eq > 0) {
        builder.environment().put(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    var started = builder.start();
    Files.writeString(pidFile, started.pid() + "\n", StandardCharsets.US_ASCII);
  }

  private static List<String> split(byte[] nulSeparated) {
    return Arrays.stream(new String(nulSeparated, StandardCharsets.UTF_8).split("\0"))
        .filter(s -> !s.isEmpty())
        .toList();
  }
}
