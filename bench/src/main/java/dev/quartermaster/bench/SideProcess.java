package dev.quartermaster.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A bench's load run from a JVM of its own (users' watches, agents' beats), so what the server
 * spends on it is the server's figure and what the load spends is its own: the bench's class path,
 * its output into {@link #log}, ended by closing its standard input.
 */
abstract class SideProcess implements AutoCloseable {
  private final Process process;
  protected final Path log;

  protected SideProcess(Class<?> main, List<String> jvmFlags, List<String> args, Path log)
      throws IOException {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    this.process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    this.log = log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Its CPU so far, in nanoseconds. */
  long cpuNanos() {
    return process.toHandle().info().totalCpuDuration().map(d -> d.toNanos()).orElse(0L);
  }

  /** Closes its standard input, its cue to end, and waits for it (30 s, then kills it). */
  @Override
  public void close() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // it is gone already
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
