package dev.quartermaster.cli;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.cli.config.ApiConnector;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code qm up} in a child JVM, as a user starts it, in a fresh directory under {@code /tmp}
 * (short, for the Unix sockets under it): its API client, its log, the CLI pointed at it through
 * the config file it wrote, and a bounded wait that stops at once if it dies. Closing it stops the
 * child and removes the directory (kept with {@code -Dqm.uptest.keep=true} or when a test failed).
 */
final class UpProcess implements AutoCloseable {
  private final Path dir;
  private final Path log;
  private final Process child;
  private final HttpApiClient api;
  private boolean passed;
  private boolean handedOver;

  private UpProcess(Path dir, Path log, Process child, HttpApiClient api) {
    this.dir = dir;
    this.log = log;
    this.child = child;
    this.api = api;
  }

  /** Starts {@code qm up} with {@code args} and waits until it says it is up. */
  static UpProcess start(String prefix, String... args) throws Exception {
    return startIn(Files.createTempDirectory(Path.of("/tmp"), prefix), "up.log", args);
  }

  /**
   * {@code kill -9} of this {@code qm up}, and a new one on the same data directory, as a user
   * starts it again after a crash; its log is {@code up-2.log}.
   */
  UpProcess killAndStartAgain(String... args) throws Exception {
    api.close();
    signal("KILL");
    child.waitFor();
    handedOver = true; // its directory now belongs to the next
    return startIn(dir, "up-2.log", args);
  }

  private static UpProcess startIn(Path dir, String logName, String... args) throws Exception {
    var log = dir.resolve(logName);
    int port;
    try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var command =
        new ArrayList<>(
            List.of(
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
                dir.resolve("d").toString(),
                "--listen",
                "127.0.0.1:" + port));
    command.addAll(List.of(args));
    var pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    // Its client config and anything under ~ go into the test directory, not the user's.
    pb.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    pb.environment().put("HOME", dir.resolve("home").toString());
    var child = pb.start();
    var up = new UpProcess(dir, log, child, null);
    try {
      // The banner is several writes: wait for the line read next, not only for its first line.
      up.await(
          "qm up prints 'is up' and its admin token",
          Duration.ofSeconds(120),
          () ->
              up.log().contains(" is up")
                  && up.log().lines().anyMatch(l -> l.trim().startsWith("Admin token")));
      var token =
          up.log()
              .lines()
              .map(String::trim)
              .filter(l -> l.startsWith("Admin token"))
              .findFirst()
              .map(l -> Path.of(l.substring("Admin token".length()).trim()))
              .orElseThrow();
      var api =
          new HttpApiClient(URI.create("http://127.0.0.1:" + port), Files.readString(token).trim());
      return new UpProcess(dir, log, child, api);
    } catch (Exception | AssertionError e) {
      child.destroyForcibly();
      throw e;
    }
  }

  HttpApiClient api() {
    return api;
  }

  /** The child's process id, to signal it as an operator would ({@code kill -STOP}). */
  long pid() {
    return child.pid();
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}, {@code KILL}) with kill(1). */
  void signal(String signal) throws Exception {
    var kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " " + child.pid() + " failed");
    }
  }

  /** Where it serves, e.g. for {@code /metrics}. */
  URI uri() {
    return api.server();
  }

  /** The cluster's data directory ({@code --data}). */
  Path data() {
    return dir.resolve("d");
  }

  /**
   * Stops it as a user would (SIGTERM, as Ctrl-C) and waits up to a minute; its exit code, or -1 if
   * it did not exit.
   */
  int stop() throws InterruptedException {
    api.close();
    child.destroy();
    return child.waitFor(60, TimeUnit.SECONDS) ? child.exitValue() : -1;
  }

  /**
   * Runs {@code qm ARGS} against this cluster from the repository root; its exit code, and output
   * in {@code out}.
   */
  int cli(StringWriter out, String... args) {
    return cliWithInput(out, "", args);
  }

  /** Runs {@code qm ARGS} as {@link #cli}, which must exit 0; what it printed. */
  String qm(String... args) {
    var out = new StringWriter();
    int exit = cli(out, args);
    if (exit != 0) {
      throw new AssertionError("qm " + String.join(" ", args) + " exited " + exit + ":\n" + out);
    }
    return out.toString();
  }

  /** The same, with {@code input} on its standard input ({@code qm apply -f -}). */
  int cliWithInput(StringWriter out, String input, String... args) {
    var env =
        new CliEnvironment(
            Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString()),
            ExamplesTest.REPO,
            dir.resolve("home"),
            new ByteArrayInputStream(input.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            Clock.systemUTC(),
            ApiConnector.http());
    var cl = Main.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(out, true));
    return cl.execute(args);
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Polls {@code condition} until it holds, failing after {@code bound} or as soon as {@code qm up}
   * exits.
   */
  void await(String what, Duration bound, Supplier<Boolean> condition) throws Exception {
    var deadline = Instant.now().plus(bound);
    RuntimeException last = null;
    while (true) {
      try {
        if (condition.get()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e; // the API not answering yet, an object between steps: look again
      }
      if (Instant.now().isAfter(deadline)) {
        var e = new AssertionError("not within " + bound + ": " + what + "; qm up log:\n" + tail());
        if (last != null) {
          e.addSuppressed(last);
        }
        throw e;
      }
      if (!child.isAlive()) {
        throw new AssertionError(
            "qm up exited " + child.exitValue() + " while waiting for: " + what + "\n" + tail());
      }
      try {
        child.onExit().get(50, TimeUnit.MILLISECONDS); // the next look, or at once if it died
      } catch (TimeoutException stillRunning) {
        // look again
      }
    }
  }

  String tail() {
    var lines = log().lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  /** The test passed: the directory may go. */
  void passed() {
    passed = true;
  }

  @Override
  public void close() throws Exception {
    if (handedOver) {
      return;
    }
    if (api != null) {
      api.close();
    }
    child.destroy(); // qm up stops its agents, daemons and tasks on SIGTERM
    if (!child.waitFor(30, TimeUnit.SECONDS)) {
      child.destroyForcibly();
    }
    if (!passed) {
      System.out.println("qm up log " + log + ":\n" + tail());
    }
    if (passed && !Boolean.getBoolean("qm.uptest.keep")) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } else {
      System.out.println("qm up directory kept: " + dir);
    }
  }
}
