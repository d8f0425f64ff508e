package dev.quartermaster.store.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.WatchListener;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The byte bound on history: large values updated often must not keep gigabytes of superseded
 * values for watches while the revision bound is far away. The scenario writes 200 KiB values, 12
 * rounds over 5 keys with a delete and re-create in between (about 12 MiB of history), against a 2
 * MiB byte bound and the default 10,000-revision bound.
 */
class HistoryBytesBoundTest {
  static final int VALUE = 200 << 10;
  static final long BOUND = 2L << 20;
  static final int KEYS = 5;
  static final int ROUNDS = 12;

  @TempDir Path dir;

  @Test
  void compactsOldestHistoryUntilItFitsTheByteBound() throws Exception {
    try (var store = SqliteStore.open(dir.resolve("s.db"))) {
      Map<String, byte[]> current = writeScenario(store);
      long before = historyBytes(store);
      assertThat(before).as("history before compaction").isGreaterThan(5 * BOUND);

      var env = new DeterministicEnv(1);
      try (var compactor =
          HistoryCompactor.start(
              store, store, env, new HistoryPlan.Limits(10_000, BOUND), Duration.ofMinutes(1))) {
        long upTo = compactor.compactNow();
        long after = historyBytes(store);
        System.out.printf(
            "history-bytes scenario: bound=%d before=%d after=%d compactedTo=%d of %d%n",
            BOUND, before, after, upTo, store.currentRevision());

        assertThat(after).as("history kept").isLessThanOrEqualTo(BOUND);
        assertThat(upTo)
            .as("the byte bound compacted, the revision bound alone would not")
            .isPositive();
        assertThat(store.compactedRevision()).isEqualTo(upTo);
        // Not more than needed: one more revision of history (at most one value) would not have
        // fit.
        assertThat(after).as("history kept").isGreaterThan(BOUND - VALUE - 64);
        assertThat(compactor.keptBytes()).isEqualTo(after);
        assertCurrentValues(store, current);

        // A watch from before the compacted revision gets "compacted" (the server's 410).
        var compacted = new CompletableFuture<Long>();
        try (var w =
            store.watch(
                "/big/",
                1,
                listener(
                    e ->
                        compacted.completeExceptionally(
                            new AssertionError("replayed compacted history: " + e)),
                    compacted::complete))) {
          assertThat(compacted.get(30, TimeUnit.SECONDS)).isEqualTo(upTo);
        }
        // A watch from the compacted revision still replays what was kept, with previous values.
        var first = new CompletableFuture<StoreEvent>();
        try (var w =
            store.watch(
                "/big/",
                upTo,
                listener(
                    first::complete,
                    r -> first.completeExceptionally(new AssertionError("compacted at " + r))))) {
          StoreEvent e = first.get(30, TimeUnit.SECONDS);
          assertThat(e.kv().modRevision()).isEqualTo(upTo + 1);
        }

        // Nothing new: a second run does nothing. Then one more round pushes the bound again.
        assertThat(compactor.compactNow()).isZero();
        for (int k = 0; k < KEYS; k++) {
          current.put(put(store, "/big/" + k, 99), current.get("/big/" + k));
          current.put("/big/" + k, value(99, k));
        }
        assertThat(compactor.compactNow()).isGreaterThan(upTo);
        assertThat(historyBytes(store)).isLessThanOrEqualTo(BOUND);
        assertCurrentValues(store, current);
      }
    }
  }

  /** The naive variant: the revision-only compactor keeps every superseded 200 KiB value. */
  @Test
  void theRevisionOnlyCompactorKeepsHistoryFarAboveTheBound() throws Exception {
    try (var store = SqliteStore.open(dir.resolve("s.db"))) {
      Map<String, byte[]> current = writeScenario(store);
      var naive = new RevisionOnlyCompactor(store, 10_000);
      assertThat(naive.compactNow()).isZero();
      assertThat(historyBytes(store))
          .as("history kept by the revision-only compactor")
          .isGreaterThan(5 * BOUND);
      assertCurrentValues(store, current);
    }
  }

  /** The byte bound never touches current values: many keys, no history, nothing compacted. */
  @Test
  void currentValuesDoNotCountAgainstTheBound() {
    try (var store = SqliteStore.open(dir.resolve("s.db"))) {
      for (int k = 0; k < 20; k++) { // 4 MiB of current values, twice the bound
        put(store, "/big/" + k, 0);
      }
      var compactor =
          HistoryCompactor.start(
              store,
              store,
              new DeterministicEnv(1),
              new HistoryPlan.Limits(10_000, BOUND),
              Duration.ofMinutes(1));
      assertThat(compactor.compactNow()).isZero();
      assertThat(compactor.keptBytes()).isZero();
      compactor.close();
    }
  }

  /** The old behaviour, kept as the naive variant: compacts by revision count only. */
  static final class RevisionOnlyCompactor {
    private final Store store;
    private final long keep;

    RevisionOnlyCompactor(Store store, long keep) {
      this.store = store;
      this.keep = keep;
    }

    long compactNow() {
      long target = store.currentRevision() - keep;
      if (target <= store.compactedRevision()) {
        return 0;
      }
      store.compact(target);
      return target;
    }
  }

  /** Rounds of updates to every key; midway one key is deleted and created again. */
  static Map<String, byte[]> writeScenario(Store store) {
    Map<String, byte[]> current = new HashMap<>();
    for (int round = 0; round < ROUNDS; round++) {
      for (int k = 0; k < KEYS; k++) {
        String key = "/big/" + k;
        if (round == ROUNDS / 2 && k == 0) {
          store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete(key))));
        }
        put(store, key, round);
        current.put(key, value(round, k));
      }
    }
    return current;
  }

  static String put(Store store, String key, int round) {
    int k = Integer.parseInt(key.substring(key.lastIndexOf('/') + 1));
    store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put(key, value(round, k)))));
    return key;
  }

  static byte[] value(int round, int k) {
    byte[] v = new byte[VALUE];
    Arrays.fill(v, (byte) (round * 31 + k));
    return v;
  }

  static void assertCurrentValues(Store store, Map<String, byte[]> current) {
    assertThat(store.range("/big/", 0).kvs()).hasSize(current.size());
    current.forEach(
        (key, v) ->
            assertThat(store.get(key))
                .as(key)
                .hasValueSatisfying(kv -> assertThat(kv.value()).isEqualTo(v)));
  }

  /**
   * Measured apart from the store's own accounting: key and value bytes of every row that is not
   * its key's newest, plus every tombstone.
   */
  static long historyBytes(SqliteStore store) throws SQLException {
    try (var c = DriverManager.getConnection("jdbc:sqlite:file:" + store.file() + "?mode=ro");
        var s = c.createStatement();
        var rs =
            s.executeQuery(
                "SELECT COALESCE(SUM(length(key) + length(value)), 0) FROM log AS l"
                    + " WHERE deleted = 1 OR EXISTS (SELECT 1 FROM log AS n WHERE n.key = l.key AND n.revision > l.revision)")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static WatchListener listener(
      java.util.function.Consumer<StoreEvent> events, java.util.function.LongConsumer compacted) {
    return new WatchListener() {
      @Override
      public void onEvent(StoreEvent event) {
        events.accept(event);
      }

      @Override
      public void onCompacted(long compactedRevision) {
        compacted.accept(compactedRevision);
      }
    };
  }
}
