package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Op;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction gives the space of the history it drops back to the file system: store.db shrinks. */
class StoreReclaimTest {
  @TempDir Path dir;

  @Test
  void compactingAWideHistoryShrinksTheFile() throws Exception {
    var file = dir.resolve("store.db");
    var value = new byte[64 * 1024];
    try (var store = SqliteStore.open(file)) {
      for (int i = 0; i < 200; i++) {
        value[0] = (byte) i;
        store.txn(Txn.when(List.of(), List.of(new Op.Put("/registry/big/one", value.clone()))));
      }
      assertThat(pragma(file, "page_count")).as("200 revisions of 64 KiB").isGreaterThan(3000);
      store.compact(store.currentRevision());
      assertThat(pragma(file, "freelist_count")).as("free pages left after compaction").isZero();
      assertThat(pragma(file, "page_count")).as("one live value after compaction").isLessThan(200);
    }
  }

  private static long pragma(Path file, String name) throws Exception {
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + file);
        var s = c.createStatement();
        var rs = s.executeQuery("PRAGMA " + name)) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }
}
