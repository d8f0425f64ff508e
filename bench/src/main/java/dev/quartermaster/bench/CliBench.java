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
 * How long a user waits for a CLI command: {@code ./qm get nodes} as a shell runs it, against a
 * {@code ./qm up} started the same way, beside the same request made by curl (a process of its own
 * too) and by a kept connection inside this JVM, in the same run. Each command twice: cold ({@code
 * QM_WARM=0}: the launcher script, then a JVM that maps the CLI's ahead-of-time cache) and through
 * the user's warm client (the launcher script and a socket to a JVM already running). Each
 * command's CPU (user + system of this process's waited-for children, from {@code /proc/self/stat},
 * plus the warm client's own) is printed beside its wall time, as it moves less with a busy
 * machine. The CLI's two caches are made with the jar; the bench says so when one is missing.
 */
final class CliBench implements Bench.Benchmark {
  static final double TARGET_MILLIS = 200;
  private static final int RUNS = Integer.getInteger("qm.bench.cliRuns", 21);

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "cli: every kind of command against a local `./qm up` (HTTP) and a `./qm server --tls`"
            + " (HTTPS), beside the raw request");
    var qm = Path.of("qm").toAbsolutePath();
    var repo = qm.getParent();
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
      var coldEnv = new java.util.HashMap<>(env);
      coldEnv.put("QM_WARM", "0");
      var coldTimes = measure(() -> run(qm, coldEnv, upDir, "get", "nodes"));
      report.line(
          "`QM_WARM=0 ./qm get nodes` (launcher + a JVM + request), " + RUNS + " runs",
          coldTimes.describe());
      awaitWarm(qm, env, upDir);
      run(qm, env, upDir, "get", "nodes");
      var qmTimes = measure(() -> run(qm, env, upDir, "get", "nodes"));
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
          "`./qm get nodes` (launcher + the warm client + request), " + RUNS + " runs",
          qmTimes.describe());
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
      // Every kind of command, over HTTP here and over HTTPS against a `qm server --tls` below.
      run(qm, env, upDir, "apply", "-f", repo.resolve("examples/training.yaml").toString());
      awaitLog(qm, env, upDir, "training-workers-0", Duration.ofSeconds(60));
      everyKind(report, "HTTP (qm up)", qm, env, upDir, true);
      https(report, qm, dir, env);
    } finally {
      upProcess.destroy();
      if (!upProcess.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        upProcess.destroyForcibly();
      }
    }
  }

  /**
   * The command kinds a user types, each {@link #RUNS} times: a listing, the JSON of a list, a
   * describe, an apply that changes nothing, a delete of nothing, a task's output (with agents),
   * the version, and an error (an object not there). Each is said met or missed against the target.
   */
  private static void everyKind(
      Report report, String over, Path qm, Map<String, String> env, Path dir, boolean withLogs)
      throws Exception {
    var deviceClasses = qm.resolveSibling("examples/deviceclass.yaml").toString();
    var commands = new java.util.LinkedHashMap<String, List<String>>();
    commands.put("get nodes", List.of("get", "nodes"));
    commands.put("get deviceclasses -o json", List.of("get", "deviceclasses", "-o", "json"));
    commands.put("describe deviceclass gpu", List.of("describe", "deviceclass", "gpu"));
    commands.put("apply -f examples/deviceclass.yaml", List.of("apply", "-f", deviceClasses));
    commands.put(
        "delete deviceclass nosuch --ignore-not-found",
        List.of("delete", "deviceclass", "nosuch", "--ignore-not-found"));
    if (withLogs) {
      commands.put(
          "logs training-workers-0 --tail 5", List.of("logs", "training-workers-0", "--tail", "5"));
    }
    commands.put("version", List.of("version"));
    commands.put("get node nosuch (an error)", List.of("get", "node", "nosuch"));
    var cold = new java.util.HashMap<>(env);
    cold.put("QM_WARM", "0");
    for (var mode : List.of("cold, a JVM per command (QM_WARM=0)", "warm client")) {
      var modeEnv = mode.startsWith("cold") ? Map.copyOf(cold) : env;
      if (!mode.startsWith("cold")) {
        awaitWarm(qm, env, dir);
      }
      int met = 0;
      for (var c : commands.entrySet()) {
        var args = c.getValue().toArray(String[]::new);
        boolean error = c.getKey().contains("an error");
        runAllowingFailure(qm, modeEnv, dir, error, args); // the page cache and the JIT warm
        var times = measure(() -> runAllowingFailure(qm, modeEnv, dir, error, args));
        double median = median(times.wallNanos) / 1e6;
        met += median <= TARGET_MILLIS ? 1 : 0;
        report.line(
            "  " + over + ", " + mode + ": `qm " + c.getKey() + "`",
            times.describe() + (median <= TARGET_MILLIS ? " (met)" : " (missed)"));
      }
      report.line(
          "  " + over + ", " + mode + ": commands within " + (int) TARGET_MILLIS + " ms median",
          met + " of " + commands.size());
    }
  }

  /** The same against a `qm server --tls` on loopback, with curl of the same listing beside. */
  private static void https(Report report, Path qm, Path dir, Map<String, String> env)
      throws Exception {
    var serverDir = dir.resolve("cli-https");
    Files.createDirectories(serverDir);
    int port = 7460 + (int) (ProcessHandle.current().pid() % 9);
    var server =
        new ProcessBuilder(
                qm.toString(),
                "server",
                "--data",
                serverDir.resolve("data").toString(),
                "--listen",
                "127.0.0.1:" + port,
                "--tls")
            .directory(serverDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(serverDir.resolve("server.log").toFile());
    server.environment().put("XDG_CONFIG_HOME", serverDir.resolve("config").toString());
    var process = server.start();
    try {
      var ca = serverDir.resolve("data/tls/ca.crt");
      awaitFile(ca, Duration.ofSeconds(120));
      awaitFile(serverDir.resolve("data/admin.token"), Duration.ofSeconds(120));
      var token = Files.readString(serverDir.resolve("data/admin.token")).trim();
      var base = "https://127.0.0.1:" + port;
      var tlsEnv =
          Map.of(
              "XDG_CONFIG_HOME", serverDir.resolve("client").toString(),
              "QM_SERVER", base,
              "QM_TOKEN_FILE", serverDir.resolve("data/admin.token").toString(),
              "QM_CA_FILE", ca.toString());
      awaitAnswer(qm, tlsEnv, serverDir, Duration.ofSeconds(120));
      run(
          qm,
          tlsEnv,
          serverDir,
          "apply",
          "-f",
          qm.resolveSibling("examples/deviceclass.yaml").toString());
      everyKind(report, "HTTPS (qm server --tls)", qm, tlsEnv, serverDir, false);
      if (Files.isExecutable(Path.of("/usr/bin/curl"))) {
        var curl =
            measure(
                () ->
                    run(
                        Path.of("/usr/bin/curl"),
                        Map.of(),
                        serverDir,
                        "-fsS",
                        "--cacert",
                        ca.toString(),
                        "-o",
                        "/dev/null",
                        "-H",
                        "Authorization: Bearer " + token,
                        base + "/api/v1/nodes?as=table"));
        report.line("  HTTPS: curl of GET /api/v1/nodes?as=table", curl.describe());
      }
    } finally {
      process.destroy();
      if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static void runAllowingFailure(
      Path qm, Map<String, String> env, Path dir, boolean mayFail, String... args)
      throws IOException, InterruptedException {
    if (!mayFail) {
      run(qm, env, dir, args);
      return;
    }
    var command = new ArrayList<>(List.of(qm.toString()));
    command.addAll(List.of(args));
    var pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    var process = pb.start();
    process.getInputStream().readAllBytes();
    process.waitFor();
  }

  /** Waits until `qm get nodes` answers (the server listens and its TLS material is made). */
  private static void awaitAnswer(Path qm, Map<String, String> env, Path dir, Duration bound)
      throws Exception {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      try {
        run(qm, env, dir, "version");
        run(qm, env, dir, "get", "deviceclasses");
        return;
      } catch (IllegalStateException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }

  /** Waits until the task has output to show (its agent started it). */
  private static void awaitLog(
      Path qm, Map<String, String> env, Path dir, String task, Duration bound) throws Exception {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      try {
        run(qm, env, dir, "logs", task, "--tail", "1");
        return;
      } catch (IllegalStateException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }

  /**
   * Runs {@code command} {@link #RUNS} times: wall time, and CPU of this process's children (the
   * launcher, a command's JVM) plus that of the user's warm client, which runs commands for them.
   */
  private static Samples measure(Command command) throws Exception {
    var samples = new Samples(new long[RUNS], new long[RUNS]);
    var warm = warmPid();
    for (int i = 0; i < RUNS; i++) {
      long cpuBefore =
          CpuTime.childrenNanos() + warm.stream().map(CpuTime::processNanos).reduce(0L, Long::sum);
      long start = System.nanoTime();
      command.run();
      samples.wallNanos[i] = System.nanoTime() - start;
      samples.cpuNanos[i] =
          CpuTime.childrenNanos()
              + warm.stream().map(CpuTime::processNanos).reduce(0L, Long::sum)
              - cpuBefore;
    }
    return samples;
  }

  /** The user's warm client ({@code cli/target/warm.UID}: port, secrets, pid), if one runs. */
  private static java.util.Optional<Long> warmPid() throws IOException {
    var uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    var endpoint = Path.of("cli/target/warm." + uid);
    if (!Files.exists(endpoint)) {
      return java.util.Optional.empty();
    }
    var parts = Files.readString(endpoint).strip().split(" ");
    long pid = Long.parseLong(parts[parts.length - 1]);
    return ProcessHandle.of(pid).isPresent()
        ? java.util.Optional.of(pid)
        : java.util.Optional.empty();
  }

  /** Waits until a warm client answers for the launcher (one starts beside a cold command). */
  private static void awaitWarm(Path qm, Map<String, String> env, Path dir) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (warmPid().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no warm client started within 30 s (cli/target/warm.*.log)");
      }
      run(qm, env, dir, "version");
      Thread.sleep(200);
    }
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
