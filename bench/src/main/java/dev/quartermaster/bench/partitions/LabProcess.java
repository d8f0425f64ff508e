package dev.quartermaster.bench.partitions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One member's process, started in its namespace as a user would start it ({@code etcd ...}, {@code
 * ./qm server ...}), its output appended to a log of its own. {@code ip netns exec} execs the
 * command, and the launcher execs the JVM, so the process's pid is the member's: a signal reaches
 * the member itself.
 */
final class LabProcess {
  private final String member;
  private final List<String> line;
  private final Path log;
  private final Map<String, String> environment;
  private Process process;
  private boolean paused;

  LabProcess(String member, List<String> line, Path log, Map<String, String> environment) {
    this.member = member;
    this.line = List.copyOf(line);
    this.log = log;
    this.environment = Map.copyOf(environment);
  }

  String member() {
    return member;
  }

  Path log() {
    return log;
  }

  synchronized void start() throws IOException {
    var builder =
        new ProcessBuilder(line)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().remove("JAVA_TOOL_OPTIONS"); // the bench's own -D settings
    builder.environment().putAll(environment);
    process = builder.start();
    paused = false;
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  synchronized long pid() {
    return process.pid();
  }

  /** SIGKILL, waited for: what a crash or an OOM kill does. */
  synchronized void kill9() throws InterruptedException {
    if (process == null) {
      return;
    }
    if (paused) {
      signal("CONT");
    }
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGSTOP: the process keeps its sockets and leases and does nothing, as under a long GC. */
  synchronized void pause() {
    if (alive() && !paused) {
      signal("STOP");
      paused = true;
    }
  }

  synchronized void resume() {
    if (paused) {
      signal("CONT");
      paused = false;
    }
  }

  /** SIGTERM, then SIGKILL after a grace period: a clean stop at the end of a run. */
  synchronized void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    resume();
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private void signal(String name) {
    try {
      Lab.run("kill", "-" + name, Long.toString(process.pid()));
    } catch (IOException e) {
      // it ended meanwhile: nothing to stop or continue
    }
  }
}
