package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Txn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's table of newest rows ({@link LatestRows}) against what SQLite has committed, read on
 * a connection of its own at the moment of each call: a key is forgotten while its old row is still
 * the committed one, and held only once its new row is. A writer that held without forgetting
 * first would let a read racing the commit answer from the old row after SQLite had answered
 * another read with the new one.
 */
class LatestRowsTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Checks each forget and hold against the committed state; records what it finds wrong. */
  private static final class CheckingRows extends LatestRows {
    private final Path file;
    private Connection reader;
    private PreparedStatement latest;
    /** Key to the revision of its newest committed row (tombstones too) when the writer forgot it. */
    private final Map<String, Long> forgottenAt = new HashMap<>();
    final List<String> violations = new ArrayList<>();
    int holds;

    CheckingRows(Path file) {
      this.file = file;
    }

    @Override
    void forget(String key) {
      forgottenAt.put(key, committedRevision(key));
      super.forget(key);
    }

    @Override
    void hold(String key, Optional<LogRow> live) {
      holds++;
      long committed = committedRevision(key);
      var forgotten = forgottenAt.remove(key);
      if (forgotten == null) {
        violations.add(key + " held without being forgotten before its commit");
      } else if (committed <= forgotten) {
        violations.add(key + " held before its commit (committed revision " + committed + ")");
      } else if (live.isPresent() && live.get().revision() != committed) {
        violations.add(key + " held at revision " + live.get().revision() + ", committed " + committed);
      }
      super.hold(key, live);
    }

    private long committedRevision(String key) {
      try {
        if (reader == null) {
          reader = DriverManager.getConnection("jdbc:sqlite:" + file);
          latest = reader.prepareStatement(LogReader.LATEST_SQL);
        }
        return LogReader.latest(latest, key).map(LogRow::revision).orElse(0L);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void theWriterForgetsAKeyBeforeItsCommitAndHoldsItAfter(@TempDir Path dir) throws Exception {
    var file = dir.resolve("store.db");
    var rows = new CheckingRows(file);
    try (var store = SqliteStore.open(file, SqliteStore.Options.defaults(), List.of(), rows)) {
      // Concurrent callers, so that batches of several transactions commit together.
      try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
        var futures = new ArrayList<Future<?>>();
        for (int c = 0; c < 8; c++) {
          int caller = c;
          futures.add(pool.submit(() -> {
            for (int i = 0; i < 50; i++) {
              var key = "/k/" + caller + "/" + (i % 5);
              if (i % 7 == 6) {
                store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete(key))));
              } else {
                store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put(key, bytes(caller + ":" + i)), new Txn.Op.Put("/shared/" + caller, bytes("" + i)))));
              }
            }
            return null;
          }));
        }
        for (var f : futures) {
          f.get();
        }
      }
      assertThat(rows.violations).isEmpty();
      assertThat(rows.holds).isPositive();
    }
  }

  @Test
  void theCheckCatchesAWriterThatHoldsWithoutForgettingFirst(@TempDir Path dir) throws Exception {
    var file = dir.resolve("store.db");
    var rows = new CheckingRows(file);
    try (var store = SqliteStore.open(file, SqliteStore.Options.defaults(), List.of(), rows)) {
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/a", bytes("1")))));
      rows.hold("/a", Optional.empty()); // what a writer that only updates the table after COMMIT does
      assertThat(rows.violations).containsExactly("/a held without being forgotten before its commit");
    }
  }

  @Test
  void aPointReadOfARecentlyWrittenKeyIsAnsweredFromTheTableWithTheNewestRow(@TempDir Path dir) {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/a", bytes("1")))));
      var second = store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/a", bytes("2")))));
      long before = store.readsFromLatestRows();
      KeyValue read = store.get("/a").orElseThrow();
      assertThat(read.value()).isEqualTo(bytes("2"));
      assertThat(read.modRevision()).isEqualTo(second.revision());
      assertThat(read.createRevision()).isEqualTo(second.revision() - 1);
      assertThat(read.version()).isEqualTo(2);
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete("/a"))));
      assertThat(store.get("/a")).isEmpty();
      assertThat(store.readsFromLatestRows()).isEqualTo(before + 2);
      // A key the writer did not write since it opened is read from SQLite, as before.
      assertThat(store.get("/never")).isEmpty();
      assertThat(store.readsFromLatestRows()).isEqualTo(before + 2);
    }
  }
}
