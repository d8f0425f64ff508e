package dev.quartermaster.bench;

import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/** The store's own commit rates: single-object compare-and-set, concurrent, and batched. */
final class StoreBench implements Bench.Benchmark {
  private static final byte[] VALUE = new byte[256];

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    report.heading("store (SqliteStore)");
    try (var store = SqliteStore.open(dir.resolve("store-cas.db"))) {
      int n = 2_000;
      var key = "/bench/counter";
      var watch = Stopwatch.start();
      for (int i = 0; i < n; i++) {
        var rev = store.get(key).map(kv -> kv.modRevision()).orElse(0L);
        var r = store.txn(Txn.when(List.of(new Compare.ModRevision(key, rev)), List.of(new Op.Put(key, VALUE))));
        if (!r.succeeded()) {
          throw new IllegalStateException("CAS lost with a single writer");
        }
      }
      report.figure("single-object CAS commits/s, 1 caller (read + compare-and-set)", n / watch.seconds(), "commits/s", raw);
    }
    for (int callers : new int[] {16, 64}) {
      try (var store = SqliteStore.open(dir.resolve("store-conc-" + callers + ".db"))) {
        int perCaller = 4_000 / callers;
        var watch = Stopwatch.start();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
          var futures = new ArrayList<java.util.concurrent.Future<?>>();
          for (int c = 0; c < callers; c++) {
            var key = "/bench/k" + c;
            futures.add(pool.submit(() -> {
              for (int i = 0; i < perCaller; i++) {
                var rev = store.get(key).map(kv -> kv.modRevision()).orElse(0L);
                store.txn(Txn.when(List.of(new Compare.ModRevision(key, rev)), List.of(new Op.Put(key, VALUE))));
              }
              return null;
            }));
          }
          for (var f : futures) {
            f.get();
          }
        }
        report.figure("CAS commits/s, " + callers + " concurrent callers on distinct keys",
            callers * perCaller / watch.seconds(), "commits/s", raw);
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
      report.figure("batched puts/s (100 puts per transaction)", txns * perTxn / watch.seconds(), "puts/s", raw);
    }
  }

}
