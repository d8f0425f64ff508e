package dev.quartermaster.bench;

import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.WatchListener;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The store's own commit rates (single-object compare-and-set, concurrent, and batched), and the
 * CPU each write, read, replayed watch event and compacted value costs.
 */
final class StoreBench implements Bench.Benchmark {
  private static final byte[] VALUE = new byte[256];

  /** About a stored object's JSON: what the CPU figures read and write. */
  private static final int OBJECT_BYTES = 2_048;

  private static final int CPU_KEYS = 2_000;

  /** How often the compaction figure overwrites every key before compacting it all. */
  private static final int OVERWRITES = 10;

  /**
   * Rounds of the CPU figures; the lowest is reported, the first rounds being the JIT's. Each
   * figure spends a second or so of CPU, as the process's CPU time moves in 10 ms ticks.
   */
  private static final int CPU_ROUNDS = 5;

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("store (SqliteStore)");
    try (var store = SqliteStore.open(dir.resolve("store-cas.db"))) {
      int n = 2_000;
      var key = "/bench/counter";
      var watch = Stopwatch.start();
      for (int i = 0; i < n; i++) {
        var rev = store.get(key).map(kv -> kv.modRevision()).orElse(0L);
        var r =
            store.txn(
                Txn.when(
                    List.of(new Compare.ModRevision(key, rev)), List.of(new Op.Put(key, VALUE))));
        if (!r.succeeded()) {
          throw new IllegalStateException("CAS lost with a single writer");
        }
      }
      report.figure(
          "single-object CAS commits/s, 1 caller (read + compare-and-set)",
          n / watch.seconds(),
          "commits/s",
          raw);
    }
    for (int callers : new int[] {16, 64}) {
      try (var store = SqliteStore.open(dir.resolve("store-conc-" + callers + ".db"))) {
        int perCaller = 4_000 / callers;
        var watch = Stopwatch.start();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
          var futures = new ArrayList<java.util.concurrent.Future<?>>();
          for (int c = 0; c < callers; c++) {
            var key = "/bench/k" + c;
            futures.add(
                pool.submit(
                    () -> {
                      for (int i = 0; i < perCaller; i++) {
                        var rev = store.get(key).map(kv -> kv.modRevision()).orElse(0L);
                        store.txn(
                            Txn.when(
                                List.of(new Compare.ModRevision(key, rev)),
                                List.of(new Op.Put(key, VALUE))));
                      }
                      return null;
                    }));
          }
          for (var f : futures) {
            f.get();
          }
        }
        report.figure(
            "CAS commits/s, " + callers + " concurrent callers on distinct keys",
            callers * perCaller / watch.seconds(),
            "commits/s",
            raw);
      }
    }
    try (var store = SqliteStore.open(dir.resolve("store-batch.db"))) {
      int txns = 200;
      int perTxn = 100;
      var watch = Stopwatch.start();
      for (int t = 0; t < txns; t++) {
        var ops = new ArrayList<Op>();
        for (int i = 0; i < perTxn; i++) {
          ops.add(new Op.Put("/bench/batch/" + t + "/" + i, VALUE));
        }
        store.txn(Txn.when(List.<Compare>of(), ops));
      }
      report.figure(
          "batched puts/s (100 puts per transaction)",
          txns * perTxn / watch.seconds(),
          "puts/s",
          raw);
    }
    cpuPerOperation(dir, report);
  }

  /**
   * CPU (all threads) per put, get, listed key, replayed watch event and compacted value, for
   * objects of {@value #OBJECT_BYTES} bytes: what a per-value cost in the store (a checksum, a
   * copy) shows up in, where commit rates are bound by fsync. The lowest of {@value #CPU_ROUNDS}
   * rounds, each on a fresh store.
   */
  private static void cpuPerOperation(Path dir, Report report) throws Exception {
    byte[] object = new byte[OBJECT_BYTES];
    new java.util.Random(1).nextBytes(object);
    double put = Double.MAX_VALUE;
    double get = Double.MAX_VALUE;
    double listed = Double.MAX_VALUE;
    double replayed = Double.MAX_VALUE;
    double compacted = Double.MAX_VALUE;
    for (int round = 0; round < CPU_ROUNDS; round++) {
      try (var store = SqliteStore.open(dir.resolve("store-cpu-" + round + ".db"))) {
        long cpu = CpuTime.nanos();
        for (int i = 0; i < CPU_KEYS; i++) {
          store.txn(Txn.when(List.of(), List.of(new Op.Put("/bench/cpu/" + i, object))));
        }
        put = Math.min(put, (CpuTime.nanos() - cpu) / 1e3 / CPU_KEYS);

        int gets = 50 * CPU_KEYS;
        cpu = CpuTime.nanos();
        for (int i = 0; i < gets; i++) {
          if (store.get("/bench/cpu/" + i % CPU_KEYS).isEmpty()) {
            throw new IllegalStateException("a written key is missing");
          }
        }
        get = Math.min(get, (CpuTime.nanos() - cpu) / 1e3 / gets);

        int ranges = 50;
        cpu = CpuTime.nanos();
        for (int i = 0; i < ranges; i++) {
          if (store.range("/bench/cpu/", 0).kvs().size() != CPU_KEYS) {
            throw new IllegalStateException("a range missed written keys");
          }
        }
        listed = Math.min(listed, (CpuTime.nanos() - cpu) / 1e3 / ranges / CPU_KEYS);

        int watches = 50;
        cpu = CpuTime.nanos();
        for (int i = 0; i < watches; i++) {
          replay(store);
        }
        replayed = Math.min(replayed, (CpuTime.nanos() - cpu) / 1e3 / watches / CPU_KEYS);

        // Every key overwritten OVERWRITES times, in transactions of 100 puts, then all of it
        // compacted.
        for (int pass = 0; pass < OVERWRITES; pass++) {
          for (int from = 0; from < CPU_KEYS; from += 100) {
            var ops = new ArrayList<Op>();
            for (int i = from; i < from + 100; i++) {
              ops.add(new Op.Put("/bench/cpu/" + i, object));
            }
            store.txn(Txn.when(List.<Compare>of(), ops));
          }
        }
        cpu = CpuTime.nanos();
        store.compact(store.currentRevision());
        compacted = Math.min(compacted, (CpuTime.nanos() - cpu) / 1e3 / OVERWRITES / CPU_KEYS);
      }
    }
    report.line(
        "CPU per single-object put (" + OBJECT_BYTES + " B value, 1 caller)",
        String.format(Locale.ROOT, "%.1f µs", put));
    report.line(
        "CPU per get (" + OBJECT_BYTES + " B value)", String.format(Locale.ROOT, "%.2f µs", get));
    report.line(
        "CPU per key of a " + CPU_KEYS + "-key range",
        String.format(Locale.ROOT, "%.2f µs", listed));
    report.line(
        "CPU per event of a watch replayed from revision 0",
        String.format(Locale.ROOT, "%.2f µs", replayed));
    report.line(
        "CPU per superseded value compacted away",
        String.format(Locale.ROOT, "%.2f µs", compacted));
  }

  /** Watches from revision 0 until every written key's event arrived. */
  private static void replay(SqliteStore store) throws InterruptedException {
    var all = new CountDownLatch(CPU_KEYS);
    var watch =
        store.watch(
            "/bench/cpu/",
            0,
            new WatchListener() {
              @Override
              public void onEvent(StoreEvent event) {
                all.countDown();
              }

              @Override
              public void onCompacted(long compactedRevision) {
                throw new IllegalStateException("nothing was compacted");
              }
            });
    try {
      if (!all.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("a watch replay did not finish");
      }
    } finally {
      watch.close();
    }
  }
}
