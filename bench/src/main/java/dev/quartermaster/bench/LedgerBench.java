package dev.quartermaster.bench;

import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.ledger.PrepareResult;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node agent's claim ledger: prepare+unprepare pairs per second with every step fsync'd (as the
 * agent does: started → durable → completed → durable → tombstone → durable), with 1 and 16
 * concurrent callers, beside the raw fsync rate of the same disk. Concurrent callers share
 * checkpoint writes (group commit), which is how the ledger beats the raw rate.
 */
final class LedgerBench implements Bench.Benchmark {

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("node agent claim ledger (fsync'd checkpoint)");
    var fsyncs = rawFsyncsPerSecond(dir.resolve("fsync.bin"), 1_000);
    report.figure("raw fsync/s (4 KiB write + fsync, same file)", fsyncs, "fsync/s", raw);
    report.line("  (the ratios below are to the raw fsync rate)", "");
    report.line("agent resident memory before the ledger runs", Memory.residentMiB() + " MiB");
    for (int callers : new int[] {1, 16}) {
      var ledgerDir = Files.createDirectories(dir.resolve("ledger-" + callers));
      var opened =
          DurableLedger.open(
              new AtomicLedgerFile(ledgerDir.resolve("ledger.json")),
              "bench-boot",
              new SystemEnv(),
              ClaimLedger.DEFAULT_TOMBSTONE_TTL);
      var durable = opened.ledger();
      int perCaller = callers == 1 ? 300 : 1_600 / callers;
      var latencies = new long[callers * perCaller];
      var next = new AtomicInteger();
      var watch = Stopwatch.start();
      try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
        var futures = new ArrayList<java.util.concurrent.Future<?>>();
        for (int c = 0; c < callers; c++) {
          var device = "gpu-" + c;
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perCaller; i++) {
                      long t0 = Stopwatch.nanos();
                      pair(durable, device);
                      latencies[next.getAndIncrement()] = Stopwatch.nanos() - t0;
                    }
                    return null;
                  }));
        }
        for (var f : futures) {
          f.get();
        }
      }
      double pairs = callers * perCaller / watch.seconds();
      report.line(
          "agent resident memory under load (" + callers + " callers)",
          Memory.residentMiB() + " MiB");
      report.figure(
          String.format(
              "prepare+unprepare pairs/s, %d caller%s (3 durable steps per pair, %d checkpoint writes)",
              callers, callers == 1 ? "" : "s", durable.writes()),
          pairs,
          "pairs/s",
          fsyncs);
      report.latencies(
          "  pair latency, " + callers + " caller" + (callers == 1 ? "" : "s"), latencies);
    }
    loadTime(dir, report);
  }

  /** One claim through the ledger as the agent drives it: each step durable before the next. */
  private static void pair(DurableLedger durable, String device) throws IOException {
    var ledger = durable.ledger();
    var claim = new ClaimRef(UUID.randomUUID().toString(), "bench");
    var result = ledger.prepare(PrepareRequest.of(claim, List.of(device)));
    if (!(result instanceof PrepareResult.Started)) {
      throw new IllegalStateException("prepare refused: " + result);
    }
    durable.persist();
    ledger.complete(claim.uid(), List.of("quartermaster.dev/gpu=" + claim.uid() + "-" + device));
    durable.persist();
    ledger.unprepare(claim);
    durable.persist();
  }

  private static void loadTime(Path dir, Report report) throws IOException {
    var ledgerDir = Files.createDirectories(dir.resolve("ledger-load"));
    var file = ledgerDir.resolve("ledger.json");
    var opened =
        DurableLedger.open(
            new AtomicLedgerFile(file),
            "bench-boot",
            new SystemEnv(),
            ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    var ledger = opened.ledger().ledger();
    for (int i = 0; i < 10_000; i++) {
      var claim = new ClaimRef(UUID.randomUUID().toString(), "claim-" + i);
      ledger.prepare(PrepareRequest.of(claim, List.of("gpu-" + i)));
      ledger.complete(claim.uid(), List.of("quartermaster.dev/gpu=" + claim.uid() + "-gpu-" + i));
    }
    opened.ledger().persist();
    var samples = new long[5];
    for (int i = 0; i < samples.length; i++) {
      long t0 = Stopwatch.nanos();
      DurableLedger.open(
          new AtomicLedgerFile(file),
          "bench-boot",
          new SystemEnv(),
          ClaimLedger.DEFAULT_TOMBSTONE_TTL);
      samples[i] = Stopwatch.nanos() - t0;
    }
    report.line("checkpoint size with 10,000 prepared claims", Files.size(file) / 1024 + " KiB");
    report.latencies(
        "ledger load time, 10,000 prepared claims (verify checksum, decode, index)", samples);
  }

  static double rawFsyncsPerSecond(Path file, int count) throws IOException {
    try (var ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      var block = ByteBuffer.allocate(4096);
      var watch = Stopwatch.start();
      for (int i = 0; i < count; i++) {
        block.clear();
        ch.write(block, 0);
        ch.force(true);
      }
      return count / watch.seconds();
    }
  }
}
