package dev.quartermaster.bench;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Issue 43's overload, items 18 and 19, each with {@code /healthz} probed throughout (a fresh
 * connection every 20 ms, its latency from connect to status line):
 *
 * <ul>
 *   <li>(a) 400 watchers that never read ({@code -Dqm.bench.overloadWatchers}) while 1,500 writes
 *       of ~4 KB ({@code -Dqm.bench.overloadWrites}) go to the kind they watch: the heap after a
 *       full GC and the resident set before and after, the most resident seen, the watchers the
 *       server cut, health latency;
 *   <li>(b) 10,000 queues in one cohort ({@code -Dqm.bench.overloadQueues}) created by 32 writers
 *       while the admission controller runs: the time to create them, the time for a workload of
 *       ANOTHER cohort (created when half of them exist) to be admitted meanwhile, then for one of
 *       the big cohort, then 1,000 more of the big cohort admitted (admissions/s and CPU per
 *       admission), health latency.
 * </ul>
 *
 * {@code -Dqm.bench.overloadParts=a} (or {@code b}) runs one part.
 */
final class OverloadBench implements Bench.Benchmark {
  private static final int WATCHERS = Integer.getInteger("qm.bench.overloadWatchers", 400);
  private static final int WRITES = Integer.getInteger("qm.bench.overloadWrites", 1_500);
  private static final int QUEUES = Integer.getInteger("qm.bench.overloadQueues", 10_000);
  private static final int BIG_COHORT_WORKLOADS = 1_000;
  private static final String PARTS = System.getProperty("qm.bench.overloadParts", "ab");

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    if (PARTS.contains("a")) {
      watchers(dir.resolve("overload-watchers"), raw, report);
    }
    if (PARTS.contains("b")) {
      queues(dir.resolve("overload-queues"), raw, report);
    }
  }

  private static void watchers(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "overload (a): "
            + WATCHERS
            + " watchers that never read, "
            + WRITES
            + " writes of ~4 KB to the kind they watch");
    try (var cluster = LocalServer.start(dir);
        var writer = new HttpApiClient(cluster.uri(), cluster.token())) {
      int port = cluster.uri().getPort();
      long heapBefore = Memory.heapAfterGcMiB();
      long rssBefore = Memory.residentMiB();
      long from = writer.list(Kinds.NODE).revision();
      var stalled = new ArrayList<Socket>();
      try (var health = HealthProbe.start(port)) {
        for (int i = 0; i < WATCHERS; i++) {
          stalled.add(stalledWatch(port, cluster.token(), from));
        }
        var labels = bulkLabels();
        var peakRss = new AtomicLong(Memory.residentMiB());
        var sampling = new AtomicBoolean(true);
        var sampler =
            Thread.ofPlatform()
                .daemon()
                .start(
                    () -> {
                      while (sampling.get()) {
                        peakRss.accumulateAndGet(Memory.residentMiB(), Math::max);
                        sleepQuietly(100);
                      }
                    });
        var clock = Stopwatch.start();
        for (int i = 0; i < WRITES; i++) {
          writer.create(new Node(ObjectMeta.named("bulk-" + i).withLabels(labels), null, null));
        }
        double wrote = clock.seconds();
        // The watchers were cut (or all the writes are queued for them) once the server says so.
        await(() -> closedTooSlow(writer, cluster) >= WATCHERS || clock.seconds() > wrote + 10);
        sampling.set(false);
        sampler.join();
        long cut = closedTooSlow(writer, cluster);
        long heapAfter = Memory.heapAfterGcMiB();
        long rssAfter = Memory.residentMiB();
        report.figure(
            "writes/s of ~4 KB with " + WATCHERS + " stalled watchers",
            WRITES / wrote,
            "writes/s",
            raw);
        report.line(
            "  watchers cut by the server (a 410 ERROR line: list again)", cut + " of " + WATCHERS);
        report.line(
            "  heap after a full GC, before → after", heapBefore + " → " + heapAfter + " MiB");
        report.line(
            "  resident set, before → most seen → after",
            rssBefore + " → " + peakRss.get() + " → " + rssAfter + " MiB");
        health.report(report);
      } finally {
        for (var s : stalled) {
          s.close();
        }
      }
    }
  }

  private static void queues(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "overload (b): "
            + QUEUES
            + " queues in one cohort, while a workload of another cohort waits for admission");
    try (var cluster = LocalServer.start(dir)) {
      var api = cluster.registry();
      api.create(
          new Queue(
              ObjectMeta.named("other"),
              new QueueSpec(
                  Optional.of("small"),
                  Map.of("gpu", 8),
                  Map.of(),
                  Map.of(),
                  1,
                  QueueOrdering.BestEffortFIFO),
              null));
      var env = new SystemEnv();
      var informers = new Informers(env, api);
      var controller = new AdmissionController(env, api, informers, EventRecorder.NONE);
      informers.start();
      await(informers::hasSynced);
      controller.loop().start();
      try (var health = HealthProbe.start(cluster.uri().getPort())) {
        var clock = Stopwatch.start();
        long cpu = CpuTime.nanos();
        var otherAt = new AtomicLong(-1);
        var otherCreated = new AtomicLong(-1);
        ControlPlaneBench.parallel(
            QUEUES,
            i -> {
              api.create(
                  new Queue(
                      ObjectMeta.named(String.format("big-%05d", i)),
                      new QueueSpec(
                          Optional.of("big"),
                          Map.of("gpu", 1),
                          Map.of(),
                          Map.of(),
                          1,
                          QueueOrdering.BestEffortFIFO),
                      null));
              if (i == QUEUES / 2) {
                otherCreated.set(Stopwatch.nanos());
                api.create(workload("other-job", "other"));
                Thread.ofVirtual()
                    .start(
                        () -> {
                          long since = Stopwatch.nanos();
                          await(
                              () ->
                                  admitted(api, "small", "other-job")
                                      || Stopwatch.nanos() - since > 300e9);
                          if (admitted(api, "small", "other-job")) {
                            otherAt.set(Stopwatch.nanos());
                          }
                        });
              }
              return i;
            });
        double created = clock.seconds();
        long createCpu = CpuTime.nanos() - cpu;
        await(() -> otherAt.get() >= 0 || clock.seconds() > created + 120);
        report.figure(
            "queues created/s (32 writers, in-process) while admission runs",
            QUEUES / created,
            "queues/s",
            raw);
        report.line(
            "  time to create " + QUEUES + " queues; CPU per queue",
            String.format("%.1f s; %.0f µs", created, createCpu / 1e3 / QUEUES));
        report.line(
            "  workload of ANOTHER cohort, created at queue " + QUEUES / 2 + ": admitted after",
            otherAt.get() < 0
                ? "NOT ADMITTED in 120 s"
                : String.format("%.2f s", (otherAt.get() - otherCreated.get()) / 1e9));
        var oneAt = Stopwatch.nanos();
        api.create(workload("big-job", "big-00000"));
        await(() -> admitted(api, "big", "big-job") || Stopwatch.nanos() - oneAt > 120e9);
        report.line(
            "  one workload of the big cohort, once all exist: admitted after",
            admitted(api, "big", "big-job")
                ? String.format("%.2f s", (Stopwatch.nanos() - oneAt) / 1e9)
                : "NOT ADMITTED in 120 s");
        var many = Stopwatch.start();
        long manyCpu = CpuTime.nanos();
        ControlPlaneBench.parallel(
            BIG_COHORT_WORKLOADS,
            i -> api.create(workload("big-w-" + i, String.format("big-%05d", 1 + i))));
        await(() -> admittedIn(api, "big") >= BIG_COHORT_WORKLOADS + 1 || many.seconds() > 120);
        double took = many.seconds();
        long used = CpuTime.nanos() - manyCpu;
        long done = admittedIn(api, "big") - 1;
        report.figure(
            BIG_COHORT_WORKLOADS
                + " more workloads of the big cohort (32 writers), created to admitted"
                + (done < BIG_COHORT_WORKLOADS ? " (INCOMPLETE: " + done + ")" : ""),
            done / took,
            "admissions/s",
            raw);
        report.line(
            "  CPU per admission (whole process: store, informers, controller, writers)",
            String.format("%.0f µs", used / 1e3 / Math.max(1, done)));
        health.report(report);
      } finally {
        controller.loop().stop();
        informers.stop();
      }
    }
  }

  private static boolean admitted(ApiClient api, String cohort, String workload) {
    return api.get(Kinds.QUOTA_LEDGER, cohort)
        .map(l -> l.spec().admitted().containsKey(workload))
        .orElse(false);
  }

  private static long admittedIn(ApiClient api, String cohort) {
    return api.get(Kinds.QUOTA_LEDGER, cohort).map(l -> l.spec().admitted().size()).orElse(0);
  }

  private static Workload workload(String name, String queue) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            1,
            new TaskTemplate(
                List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.Never);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()).inQueue(queue, Optional.empty()),
        null);
  }

  /** The server's count of watch streams it ended for a slow client (any reason). */
  private static long closedTooSlow(HttpApiClient writer, LocalServer cluster) {
    try (var s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", cluster.uri().getPort()), 5_000);
      s.setSoTimeout(30_000);
      s.getOutputStream()
          .write(
              "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      var text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      long sum = 0;
      for (var line : text.split("\n")) {
        if (line.startsWith("qm_watches_closed_total")) {
          sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return sum;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** A watch over a raw socket with a small receive buffer: its head is read, nothing after. */
  private static Socket stalledWatch(int port, String token, long from) throws IOException {
    var socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(30_000);
    var request =
        "GET /api/v1/nodes?watch=true&revision="
            + from
            + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
            + token
            + "\r\n\r\n";
    socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    readHead(socket.getInputStream());
    return socket;
  }

  private static void readHead(InputStream in) throws IOException {
    int matched = 0;
    var end = "\r\n\r\n";
    for (int b; matched < 4 && (b = in.read()) != -1; ) {
      matched = b == end.charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }

  private static Map<String, String> bulkLabels() {
    var labels = new HashMap<String, String>();
    for (int i = 0; i < 60; i++) {
      labels.put("bulk-" + i, "v".repeat(60));
    }
    return labels;
  }

  private static void await(BooleanSupplier done) {
    while (!done.getAsBoolean()) {
      sleepQuietly(20);
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code GET /healthz} on a fresh connection every 20 ms, from a platform thread of its own. */
  private static final class HealthProbe implements AutoCloseable {
    private final ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong failures = new AtomicLong();
    private Thread thread;

    static HealthProbe start(int port) {
      var probe = new HealthProbe();
      probe.thread = Thread.ofPlatform().daemon().name("bench-health").start(() -> probe.run(port));
      return probe;
    }

    private void run(int port) {
      while (running.get()) {
        long start = Stopwatch.nanos();
        try (var s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 60_000);
          s.setSoTimeout(60_000);
          s.getOutputStream()
              .write(
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                      .getBytes(StandardCharsets.US_ASCII));
          var in = s.getInputStream();
          for (int b; (b = in.read()) != -1 && b != '\n'; ) {
            // the status line
          }
          nanos.add(Stopwatch.nanos() - start);
        } catch (IOException e) {
          failures.incrementAndGet();
        }
        sleepQuietly(20);
      }
    }

    void report(Report report) throws InterruptedException {
      close();
      var samples = nanos.stream().mapToLong(Long::longValue).toArray();
      if (samples.length > 0) {
        report.latencies("/healthz (" + samples.length + " probes)", samples);
      }
      if (failures.get() > 0) {
        report.line("  /healthz probes that failed", Long.toString(failures.get()));
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join();
    }
  }
}
