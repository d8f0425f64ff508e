package dev.quartermaster.bench;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.etcd.EtcdProcesses;
import dev.quartermaster.store.etcd.EtcdStore;
import dev.quartermaster.store.sqlite.SqliteStore;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The store on etcd beside SQLite: single-object compare-and-set commits/s and API creates/s
 * through a real server, each with 1 and 32 callers, on an etcd of 1 and of 3 members started here,
 * each beside the raw put rate of that same etcd (jetcd puts, no compare, no read-back) measured in
 * the same run. Ratios in parentheses are to the raw SQLite commit rate; the text says the ratio to
 * raw etcd.
 */
final class EtcdBench implements Bench.Benchmark {
  private static final byte[] VALUE = new byte[256];

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty()) {
      report.heading("etcd: skipped (" + EtcdProcesses.HOW_TO_INSTALL + ")");
      return;
    }
    report.heading("store and API on SQLite (same run, for comparison)");
    for (int callers : new int[] {1, 32}) {
      try (var store = SqliteStore.open(dir.resolve("etcd-cmp-sqlite-" + callers + ".db"))) {
        report.figure(
            "SQLite CAS commits/s, " + callers + " caller" + (callers == 1 ? "" : "s"),
            cas(store, callers),
            "commits/s",
            raw);
      }
      try (var server = LocalServer.start(dir.resolve("etcd-cmp-api-" + callers))) {
        report.figure(
            "SQLite API creates/s, " + callers + " client" + (callers == 1 ? "" : "s"),
            creates(server, callers),
            "creates/s",
            raw);
      }
    }
    for (int members : new int[] {1, 3}) {
      report.heading(
          "etcd " + members + " member" + (members == 1 ? "" : "s") + " (" + binary.get() + ")");
      try (var etcd = EtcdProcesses.start(binary.get(), dir.resolve("etcd-" + members), members)) {
        for (int callers : new int[] {1, 32}) {
          double puts = rawPuts(etcd.endpoints(), callers);
          report.figure(
              "raw etcd puts/s, " + callers + " caller" + (callers == 1 ? "" : "s"),
              puts,
              "puts/s",
              raw);
          double cas;
          try (var store = new EtcdStore(etcd.endpoints(), "/bench-cas-" + callers)) {
            cas = cas(store, callers);
          }
          report.figure(
              String.format(
                  "EtcdStore CAS commits/s, %d caller%s (%.2fx raw etcd)",
                  callers, callers == 1 ? "" : "s", cas / puts),
              cas,
              "commits/s",
              raw);
          double creates;
          try (var server =
              LocalServer.start(
                  dir.resolve("etcd-api-" + members + "-" + callers),
                  new EtcdStore(etcd.endpoints(), "/bench-api-" + callers))) {
            creates = creates(server, callers);
          }
          report.figure(
              String.format(
                  "API creates/s on etcd, %d client%s (%.2fx raw etcd)",
                  callers, callers == 1 ? "" : "s", creates / puts),
              creates,
              "creates/s",
              raw);
        }
      }
    }
  }

  /** Read + compare-and-set of one key per caller, as the registry writes an object. */
  private static double cas(Store store, int callers) throws Exception {
    int perCaller = callers == 1 ? 1_000 : 4_000 / callers;
    return parallel(
        callers,
        perCaller,
        c -> {
          var key = "/bench/k" + c;
          for (int i = 0; i < perCaller; i++) {
            var rev = store.get(key).map(kv -> kv.modRevision()).orElse(0L);
            if (!store
                .txn(
                    Txn.when(
                        List.of(new Compare.ModRevision(key, rev)),
                        List.of(new Op.Put(key, VALUE))))
                .succeeded()) {
              throw new IllegalStateException("CAS lost with one writer per key");
            }
          }
        });
  }

  private static double creates(LocalServer server, int clients) throws Exception {
    // Not counted: the first requests of a server pay for class loading and JIT, on whichever store
    // ran first.
    try (var api = new HttpApiClient(server.uri(), server.token())) {
      for (int i = 0; i < 200; i++) {
        api.create(new Node(ObjectMeta.named("warm-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
      }
    }
    int perClient = clients == 1 ? 500 : 4_000 / clients;
    return parallel(
        clients,
        perClient,
        c -> {
          try (var api = new HttpApiClient(server.uri(), server.token())) {
            for (int i = 0; i < perClient; i++) {
              api.create(
                  new Node(ObjectMeta.named("n-" + c + "-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY));
            }
          }
        });
  }

  private static double rawPuts(List<String> endpoints, int callers) throws Exception {
    int perCaller = callers == 1 ? 1_000 : 4_000 / callers;
    try (var client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build()) {
      var kv = client.getKVClient();
      var value = ByteSequence.from(VALUE);
      return parallel(
          callers,
          perCaller,
          c -> {
            var key = ByteSequence.from("/raw/k" + c, StandardCharsets.UTF_8);
            for (int i = 0; i < perCaller; i++) {
              kv.put(key, value).get(10, TimeUnit.SECONDS);
            }
          });
    }
  }

  interface PerCaller {
    void run(int caller) throws Exception;
  }

  /** Operations per second of {@code callers} virtual threads doing {@code perCaller} each. */
  private static double parallel(int callers, int perCaller, PerCaller work) throws Exception {
    var watch = Stopwatch.start();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<java.util.concurrent.Future<?>>();
      for (int c = 0; c < callers; c++) {
        int caller = c;
        futures.add(
            pool.submit(
                (Callable<Void>)
                    () -> {
                      work.run(caller);
                      return null;
                    }));
      }
      for (var f : futures) {
        f.get();
      }
    }
    return (double) callers * perCaller / watch.seconds();
  }
}
