package dev.quartermaster.bench;

import dev.quartermaster.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs the benchmarks and prints each figure beside the raw SQLite commit rate measured on the same
 * disk in the same run, so that the ratios mean something on any machine.
 *
 * <p>Usage: {@code ./qm bench
 * [store|api|clients|watch|ledger|control|e2e|fleet|gangs|admission|queues|preemption|overload|volumes|etcd|cli|mig|partitions|scale|all]
 * [--dir DIR]}. Never part of the tests.
 */
public final class Bench {
  private Bench() {}

  public static void main(String[] args) throws Exception {
    var what = args.length > 0 && !args[0].startsWith("--") ? args[0] : "all";
    var benchmarks = selected(what);
    var given = args.length > 2 && args[1].equals("--dir");
    var dir = given ? Path.of(args[2]) : Files.createTempDirectory("qm-bench");
    if (!given) {
      // Each run's stores, ledgers and logs take 100-200 MiB: a directory of our own goes with us,
      // also when the run is interrupted (a directory given with --dir is the caller's to keep).
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> removeQuietly(dir), "qm-bench-cleanup"));
    }
    var report = new Report(System.out);
    report.heading(
        "Quartermaster benchmarks — "
            + Runtime.getRuntime().availableProcessors()
            + " cores, "
            + "Java "
            + Runtime.version()
            + ", data in "
            + dir);

    var raw = RawSqlite.commitsPerSecond(dir.resolve("raw.db"), 2_000);
    report.figure(
        "raw SQLite commits/s (WAL, synchronous=FULL, 1 row per commit)", raw, "commits/s", raw);

    for (var b : benchmarks) {
      b.run(dir, raw, report);
    }
    report.heading("done");
  }

  private static List<Benchmark> selected(String what) {
    return switch (what) {
      case "store" -> List.of(new StoreBench());
      case "api" -> List.of(new ApiBench(), new HttpClientBench());
      case "clients" -> List.of(new HttpClientBench());
      case "watch" -> List.of(new WatchBench());
      case "ledger" -> List.of(new LedgerBench());
      case "control" -> List.of(new ControlPlaneBench());
      case "e2e" -> List.of(new EndToEndBench());
      case "fleet" -> List.of(new FleetBench());
      case "gangs" -> List.of(new GangBench());
      case "admission" -> List.of(new AdmissionBench());
      case "queues" -> List.of(new AdmissionBench(), new PreemptionBench(), new StreamBench());
      case "preemption" -> List.of(new PreemptionBench());
      case "overload" -> List.of(new OverloadBench());
      case "volumes" -> List.of(new VolumeCallsBench());
      case "etcd" -> List.of(new EtcdBench());
      case "cli" -> List.of(new CliBench());
      case "mig" -> List.of(new MigBench());
      case "partitions" -> List.of(new PartitionsBench());
      case "scale" -> List.of(new ScaleBench());
      case "heartbeats" -> List.of(new HeartbeatBench());
      case "all" ->
          List.of(
              new StoreBench(),
              new ApiBench(),
              new HttpClientBench(),
              new WatchBench(),
              new LedgerBench(),
              new ControlPlaneBench(),
              new EndToEndBench(),
              new FleetBench(),
              new GangBench(),
              new AdmissionBench(),
              new PreemptionBench(),
              new OverloadBench(),
              new VolumeCallsBench(),
              new EtcdBench(),
              new CliBench(),
              new MigBench());
      default ->
          throw new IllegalArgumentException(
              "unknown benchmark '"
                  + what
                  + "': use store, api, clients, watch, ledger, control, e2e, fleet, gangs, admission, queues, preemption, overload, volumes, etcd, cli, mig, partitions, scale, heartbeats or all");
    };
  }

  private static void removeQuietly(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      System.err.println(
          "qm bench: could not remove its data directory " + dir + ": " + e.getMessage());
    }
  }

  /** One group of measurements. */
  interface Benchmark {
    void run(Path dir, double rawCommitsPerSecond, Report report) throws Exception;
  }
}
