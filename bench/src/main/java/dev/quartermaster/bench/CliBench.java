package dev.quartermaster.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long a user waits for a CLI command: {@code ./qm get nodes} as a shell runs it (the launcher
 * script, then a JVM that maps the CLI's ahead-of-time cache), against a {@code ./qm up} started
 * the same way, beside the same request made by curl (a process of its own too) and by a kept
 * connection inside this JVM, in the same run. Each command's CPU (user + system, from this
 * process's waited-for children in {@code /proc/self/stat}) is printed beside its wall time, as it
 * moves less with a busy machine. The CLI's two caches are made with the jar; the bench says so
 * when one is missing.
 */
final class CliBench implements Bench.Benchmark {
  static final double TARGET_MILLIS = 200;
  private static final int RUNS = Integer.getInteger("qm.bench.cliRuns", 21);

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("cli: `./qm get nodes` against a local `./qm up`, beside the raw HTTP request");
    var qm = Path.of("qm").toAbsolutePath();
    if (!Files.isExecutable(qm)) {
      throw new IllegalStateException("run from the repository root (./qm bench cli): no " + qm);
    }
    var upDir = dir.resolve("cli-up");
    Files.createDirectories(upDir);
    int port = 7470 + (int) (ProcessHandle.current().pid() % 9);
    var env = Map.of("XDG_CONFIG_HOME", upDir.resolve("config").toString());
    var listingCache = qm.resolveSibling("cli/target/qm-get.aot");
    var commandCache = qm.resolveSibling("cli/target/qm-cli.aot");
    run(qm, env, upDir, "version"); // builds the jar if the sources changed
    var up =
        new ProcessBuilder(
                qm.toString(),
                "up",
                "--data",
                upDir.resolve("data").toString(),
                "--listen",
                "127.0.0.1:" + port)
            .directory(upDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(upDir.resolve("up.log").toFile());
    up.environment().putAll(env);
    var upProcess = up.start();
    try {
      var base = URI.create("http://127.0.0.1:" + port);
      awaitHealthy(base, upProcess, Duration.ofSeconds(120));
      // The client config is written once the agents are up, after the API answers: wait for it.
      awaitFile(upDir.resolve("config/quartermaster/config.yaml"), Duration.ofSeconds(120));
      var token = Files.readString(upDir.resolve("data/admin.token")).trim();
      // What `qm get nodes` asks: the nodes' table, rendered by the server.
      var nodes = base.resolve("/api/v1/nodes?as=table");
      // The build made both caches (cli/src/build/AotCaches.java); without them this measures the
      // commands uncached, and says so.
      for (var cache : List.of(listingCache, commandCache)) {
        if (!Files.exists(cache)) {
          report.line("no AOT cache", cache + " is missing: the commands below ran without it");
        }
      }
      run(qm, env, upDir, "describe", "node", "node-1");
      for (int i = 0; i < 3; i++) {
        run(qm, env, upDir, "get", "nodes"); // the page cache warm, as for a user's next commands
      }
      var qmTimes = measure(() -> run(qm, env, upDir, "get", "nodes"));
      var describeTimes = measure(() -> run(qm, env, upDir, "describe", "node", "node-1"));
      var versionTimes = measure(() -> run(qm, env, upDir, "version"));
      var curl =
          Files.isExecutable(Path.of("/usr/bin/curl"))
              ? measure(
                  () ->
                      run(
                          Path.of("/usr/bin/curl"),
                          Map.of(),
                          upDir,
                          "-fsS",
                          "-o",
                          "/dev/null",
                          "-H",
                          "Authorization: Bearer " + token,
                          nodes.toString()))
              : null;
      var inProcess = inProcess(nodes, token);

      double qmMedian = median(qmTimes.wallNanos) / 1e6;
      report.line(
          "`./qm get nodes` (launcher + JVM + request), " + RUNS + " runs", qmTimes.describe());
      report.line(
          "`./qm describe node node-1` (the command tree and object model)",
          describeTimes.describe());
      report.line(
          "`./qm version` (launcher + JVM + command tree, no request)", versionTimes.describe());
      if (curl != null) {
        report.line("curl of GET /api/v1/nodes?as=table (a process per request)", curl.describe());
        report.line(
            "  `qm get nodes` / curl, medians",
            String.format(Locale.ROOT, "%.1fx", qmMedian / (median(curl.wallNanos) / 1e6)));
      } else {
        report.line(
            "curl of GET /api/v1/nodes", "skipped: no /usr/bin/curl (apt-get install curl)");
      }
      report.line(
          "GET /api/v1/nodes?as=table in this JVM on a kept connection (warm)",
          String.format(Locale.ROOT, "median %.2f ms", median(inProcess) / 1e6));
      report.line(
          "  target for `qm get nodes` median: " + (int) TARGET_MILLIS + " ms",
          String.format(
              Locale.ROOT,
              "%s (%.0f ms, %.2fx of the target)",
              qmMedian <= TARGET_MILLIS ? "met" : "missed",
              qmMedian,
              qmMedian / TARGET_MILLIS));
    } finally {
      upProcess.destroy();
      if (!upProcess.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        upProcess.destroyForcibly();
      }
    }
  }

  private static Samples measure(Command command) throws Exception {
    var samples = new Samples(new long[RUNS], new long[RUNS]);
    for (int i = 0; i < RUNS; i++) {
      long cpuBefore = CpuTime.childrenNanos();
      long start = System.nanoTime();
      command.run();
      samples.wallNanos[i] = System.nanoTime() - start;
      samples.cpuNanos[i] = CpuTime.childrenNanos() - cpuBefore;
    }
    return samples;
  }

  private static long[] inProcess(URI uri, String token) throws Exception {
    try (var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      var request =
          HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token).GET().build();
      for (int i = 0; i < 200; i++) {
        client.send(
            request, HttpResponse.BodyHandlers.ofByteArray()); // warm the JIT and the connection
      }
      var nanos = new long[RUNS];
      for (int i = 0; i < RUNS; i++) {
        long start = System.nanoTime();
        var response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        nanos[i] = System.nanoTime() - start;
        if (response.statusCode() != 200) {
          throw new IllegalStateException("GET " + uri + " answered " + response.statusCode());
        }
      }
      return nanos;
    }
  }

  private static void run(Path program, Map<String, String> env, Path dir, String... args)
      throws IOException, InterruptedException {
    var command = new ArrayList<>(List.of(program.toString()));
    command.addAll(List.of(args));
    var pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    var process = pb.start();
    var output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
    }
  }

  private static void awaitHealthy(URI base, Process up, Duration bound) throws Exception {
    try (var client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
      long deadline = System.nanoTime() + bound.toNanos();
      while (System.nanoTime() < deadline) {
        if (!up.isAlive()) {
          throw new IllegalStateException(
              "qm up exited with " + up.exitValue() + " before it was healthy");
        }
        try {
          var response =
              client.send(
                  HttpRequest.newBuilder(base.resolve("/healthz")).build(),
                  HttpResponse.BodyHandlers.discarding());
          if (response.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException("qm up not healthy within " + bound);
  }

  private static void awaitFile(Path file, Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(file + " was not made within " + bound);
      }
      Thread.sleep(200);
    }
  }

  private static double median(long[] values) {
    var sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private record Samples(long[] wallNanos, long[] cpuNanos) {
    String describe() {
      var sorted = wallNanos.clone();
      Arrays.sort(sorted);
      return String.format(
          Locale.ROOT,
          "median %.0f ms (min %.0f, max %.0f), CPU %.0f ms per command",
          sorted[sorted.length / 2] / 1e6,
          sorted[0] / 1e6,
          sorted[sorted.length - 1] / 1e6,
          Arrays.stream(cpuNanos).average().orElse(0) / 1e6);
    }
  }

  @FunctionalInterface
  private interface Command {
    void run() throws Exception;
  }
}
