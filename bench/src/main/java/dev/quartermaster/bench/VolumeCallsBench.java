package dev.quartermaster.bench;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.files.FileTrees;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import dev.quartermaster.csi.hostpath.HostpathPlugin;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Controller volume calls: ControllerPublishVolume + ControllerUnpublishVolume cycles per second
 * over gRPC on real hostpath plugin sockets (in-process {@link HostpathServer}s, state on disk and
 * fsync'd as in production), first raw (one caller, then {@value #CALLERS} callers on different
 * volumes, as an unserialized CO would call), then with every call submitted through one {@link
 * KeyedSerializer} keyed by plugin (1 plugin, then {@value #PLUGINS} plugins whose calls run beside
 * each other), and the serializer's own cost with calls that complete at once (1 key, then {@value
 * #PLUGINS} keys).
 *
 * <p>Each figure is timed over {@value #RUNS} runs of {@code RUN_SECONDS} after one warm-up run,
 * and printed as median, min and max. A cycle is two calls: publish, then unpublish, each awaited.
 */
final class VolumeCallsBench implements Bench.Benchmark {
  static final int CALLERS = 64;
  static final int PLUGINS = 10;

  /**
   * Nodes each plugin knows, so that {@value #CALLERS} volumes attached at once fit its 25 device
   * names per node.
   */
  static final int NODES = 4;

  static final int RUNS = 5;
  static final double RUN_SECONDS =
      Double.parseDouble(System.getProperty("qm.bench.volumeRunSeconds", "2"));
  private static final AccessMode MODE = AccessMode.SingleNodeWriter;

  /** One measured figure: cycles/s of each run. */
  record Figure(String what, double[] perRun) {
    double median() {
      var s = perRun.clone();
      Arrays.sort(s);
      return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    double min() {
      return Arrays.stream(perRun).min().orElseThrow();
    }

    double max() {
      return Arrays.stream(perRun).max().orElseThrow();
    }
  }

  /** One cycle of caller {@code caller}. */
  @FunctionalInterface
  interface Cycle {
    void run(int caller) throws Exception;
  }

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "controller volume calls: hostpath plugin over gRPC, raw and through the KeyedSerializer");
    // Socket paths must fit sun_path (108 bytes): a short directory under /tmp, not the bench dir.
    var root = Files.createTempDirectory(Path.of("/tmp"), "qmvb");
    var servers = new ArrayList<HostpathServer>();
    var clients = new ArrayList<CsiPlugin>();
    try {
      double fsyncs = LedgerBench.rawFsyncsPerSecond(root.resolve("fsync.bin"), 500);
      report.figure(
          "raw fsync/s in " + root + " (4 KiB write + fsync, same file)", fsyncs, "fsync/s", raw);
      for (int p = 0; p < PLUGINS; p++) {
        var state = root.resolve("p" + p);
        var config =
            HostpathConfig.of("n0", state)
                .withCapacity(Long.MAX_VALUE / 4)
                .withDeviceSlots(25)
                .withRoles(true, false);
        // Other nodes sharing the state dir, as node plugins on other machines do:
        // ControllerPublish
        // accepts them, and each has its own 25 device names.
        for (int n = 1; n < NODES; n++) {
          HostpathPlugin.open(HostpathConfig.of("n" + n, state).withRoles(false, true));
        }
        var server =
            HostpathServer.start(
                config, root.resolve("p" + p + ".sock").toString(), Optional.empty());
        servers.add(server);
        clients.add(GrpcCsiPlugin.open(server.endpoint(), Duration.ofSeconds(60)));
      }
      // Volume v<w> on plugin 0 for every caller, and on plugin w % PLUGINS for the spread runs.
      var created = Stopwatch.start();
      int volumes = 0;
      for (int w = 0; w < CALLERS; w++) {
        await(clients.get(0).createVolume(volume(w), 1 << 20, MODE, Map.of()));
        volumes++;
        if (w % PLUGINS != 0) {
          await(clients.get(w % PLUGINS).createVolume(volume(w), 1 << 20, MODE, Map.of()));
          volumes++;
        }
      }
      report.line(
          "volumes created beforehand",
          volumes + " in " + String.format(Locale.ROOT, "%.1f s", created.seconds()));

      var serializer = new KeyedSerializer<String>(new SystemEnv());
      var figures = new ArrayList<Figure>();
      var one = clients.get(0);
      figures.add(measure("raw gRPC, 1 caller (sequential)", 1, w -> cycle(one, w)));
      figures.add(
          measure(
              "raw gRPC, " + CALLERS + " concurrent callers, 1 plugin",
              CALLERS,
              w -> cycle(one, w)));
      figures.add(
          measure(
              "KeyedSerializer, " + CALLERS + " submitters, 1 plugin (1 key)",
              CALLERS,
              w -> serializedCycle(serializer, "plugin-0", one, w)));
      figures.add(
          measure(
              "KeyedSerializer, "
                  + CALLERS
                  + " submitters, "
                  + PLUGINS
                  + " plugins ("
                  + PLUGINS
                  + " keys)",
              CALLERS,
              w ->
                  serializedCycle(
                      serializer, "plugin-" + (w % PLUGINS), clients.get(w % PLUGINS), w)));
      figures.add(
          measure(
              "KeyedSerializer alone (no I/O), " + CALLERS + " submitters, 1 key",
              CALLERS,
              w ->
                  await(
                      serializer.submit("key-0", () -> CompletableFuture.completedFuture(null)))));
      figures.add(
          measure(
              "KeyedSerializer alone (no I/O), " + CALLERS + " submitters, " + PLUGINS + " keys",
              CALLERS,
              w ->
                  await(
                      serializer.submit(
                          "key-" + (w % PLUGINS), () -> CompletableFuture.completedFuture(null)))));

      var stats = serializer.stats();
      if (stats.failed() != 0 || stats.heldKeys() != 0 || stats.waiting() != 0) {
        throw new IllegalStateException("serializer ended unclean: " + stats);
      }
      report.line(
          "serializer totals", stats.started() + " calls started, " + stats.failed() + " failed");
      table(figures, report);
      for (var f : figures) {
        report.figure(f.what() + " (median)", f.median(), "cycles/s", raw);
      }
    } finally {
      for (var c : clients) {
        c.close();
      }
      for (var s : servers) {
        s.close();
      }
      FileTrees.delete(root);
    }
  }

  /**
   * One warm-up run, then {@link #RUNS} timed runs of {@code callers} threads cycling until the
   * run's end.
   */
  private static Figure measure(String what, int callers, Cycle cycle) throws Exception {
    timed(callers, cycle);
    var perRun = new double[RUNS];
    for (int r = 0; r < RUNS; r++) {
      perRun[r] = timed(callers, cycle);
    }
    return new Figure(what, perRun);
  }

  /**
   * Cycles/s of one run: every caller cycles until the run's time is up; the time counts until the
   * last one is done.
   */
  private static double timed(int callers, Cycle cycle) throws Exception {
    var counts = new long[callers];
    var watch = Stopwatch.start();
    long end = Stopwatch.nanos() + (long) (RUN_SECONDS * 1e9);
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<?>>();
      for (int c = 0; c < callers; c++) {
        int caller = c;
        futures.add(
            pool.submit(
                () -> {
                  while (Stopwatch.nanos() < end) {
                    cycle.run(caller);
                    counts[caller]++;
                  }
                  return null;
                }));
      }
      for (var f : futures) {
        f.get();
      }
    }
    double seconds = watch.seconds();
    return Arrays.stream(counts).sum() / seconds;
  }

  private static void cycle(CsiPlugin plugin, int caller) {
    var context = await(plugin.controllerPublish(volume(caller), node(caller), MODE, false));
    if (!context.containsKey("device")) {
      throw new IllegalStateException("publish returned no device: " + context);
    }
    await(plugin.controllerUnpublish(volume(caller), node(caller)));
  }

  private static void serializedCycle(
      KeyedSerializer<String> serializer, String key, CsiPlugin plugin, int caller) {
    var context =
        await(
            serializer.submit(
                key, () -> plugin.controllerPublish(volume(caller), node(caller), MODE, false)));
    if (!context.containsKey("device")) {
      throw new IllegalStateException("publish returned no device: " + context);
    }
    await(serializer.submit(key, () -> plugin.controllerUnpublish(volume(caller), node(caller))));
  }

  private static String volume(int caller) {
    return "v" + caller;
  }

  private static String node(int caller) {
    return "n" + (caller % NODES);
  }

  private static void table(List<Figure> figures, Report report) {
    report.text("");
    report.text("| cycles/s (publish+unpublish; no I/O: submit+complete) | median | min | max |");
    report.text("|---|---:|---:|---:|");
    for (var f : figures) {
      report.text(
          String.format(
              Locale.ROOT, "| %s | %.0f | %.0f | %.0f |", f.what(), f.median(), f.min(), f.max()));
    }
    report.text("");
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("call failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException("call did not finish in 120 s", e);
    }
  }
}
