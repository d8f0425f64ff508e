package dev.quartermaster.cli.failover;

import dev.quartermaster.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One {@code qm} command in a child JVM, as an operator starts it, its output in {@code
 * <name>.log}.
 */
final class QmChild implements AutoCloseable {
  private final String name;
  private final Path log;
  private final Process process;

  private QmChild(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
  }

  /** Starts {@code qm ARGS} and waits until its output contains {@code ready}. */
  static QmChild start(Path dir, String name, String ready, List<String> args) throws Exception {
    var log = dir.resolve(name + ".log");
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var command =
        new ArrayList<>(
            List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
    command.addAll(args);
    var pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    pb.environment().put("HOME", dir.resolve("home").toString());
    var child = new QmChild(name, log, pb.start());
    try {
      child.await(ready, Duration.ofSeconds(120));
    } catch (Exception | AssertionError e) {
      child.kill();
      throw e;
    }
    return child;
  }

  String name() {
    return name;
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  String tail() {
    var lines = log().lines().toList();
    return name
        + ":\n"
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** Waits until the output contains {@code text}; fails if the process ends first. */
  void awaitOutput(String text, Duration bound) throws Exception {
    await(text, bound);
  }

  private void await(String text, Duration bound) throws Exception {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!log().contains(text)) {
      if (!process.isAlive()) {
        throw new AssertionError(
            name + " exited " + process.exitValue() + " before printing '" + text + "'\n" + tail());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            name + " did not print '" + text + "' within " + bound + "\n" + tail());
      }
      try {
        process.onExit().get(50, TimeUnit.MILLISECONDS);
      } catch (TimeoutException stillRunning) {
        // look again
      }
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** {@code kill -SIGNAL} ({@code STOP}, {@code CONT}). */
  void signal(String signal) throws Exception {
    var kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  /** {@code kill -9}. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      kill();
    }
  }
}
