package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is particular to the SQLite store: its file, its refusals, and its bounded watch queues. */
// Watches and stores are opened in try-with-resources only to be closed, hence "try".
@SuppressWarnings("try")
class SqliteStoreFileTest {
  private static final long AWAIT_MS = 30_000;

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("store.db");
  }

  @Test
  void aFileThatIsNotSqliteIsRefusedAndLeftAlone() throws Exception {
    byte[] content =
        "these are somebody's notes, not a database\n".repeat(50).getBytes(StandardCharsets.UTF_8);
    Files.write(file(), content);
    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("not a SQLite database");
    assertThat(Files.readAllBytes(file())).isEqualTo(content);
  }

  @Test
  void aForeignSqliteDatabaseIsRefusedAndLeftAlone() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE users (name TEXT)");
      s.execute("INSERT INTO users VALUES ('ada')");
    }
    byte[] content = Files.readAllBytes(file());
    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("not a Quartermaster store");
    assertThat(Files.readAllBytes(file())).isEqualTo(content);
  }

  @Test
  void anUnknownFormatIsRefused() throws Exception {
    SqliteStore.open(file()).close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement()) {
      s.execute("UPDATE meta SET value = 99 WHERE name = 'format'");
    }
    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("unsupported store format 99");
  }

  /**
   * The revision is derived, not written at each commit (Schema): after a delete whose tombstone is
   * the newest row, compacted away with everything else, a reopened store still goes on from the
   * revision it had, never handing one out twice.
   */
  @Test
  void noRevisionIsHandedOutTwiceAfterCompactionRemovesTheNewestRows() throws Exception {
    long last;
    try (SqliteStore store = SqliteStore.open(file())) {
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/a", new byte[] {1}))));
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/b", new byte[] {2}))));
      last = store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete("/k/b")))).revision();
      store.compact(
          last); // removes b's put and its tombstone: the newest row left is a's, two revisions
      // back
    }
    try (SqliteStore store = SqliteStore.open(file())) {
      assertThat(store.currentRevision()).isEqualTo(last);
      assertThat(
              store
                  .txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/c", new byte[] {3}))))
                  .revision())
          .isEqualTo(last + 1);
    }
    assertThat(meta("revision")).as("not written at each commit any more").isZero();
  }

  /** A meta row as the file holds it, read with plain JDBC. */
  private long meta(String name) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT value FROM meta WHERE name = '" + name + "'")) {
      assertThat(rs.next()).as("meta row " + name).isTrue();
      return rs.getLong(1);
    }
  }

  @Test
  void aFormatOneStoreIsUpgradedAndGoesOnFromItsRevision() throws Exception {
    long last;
    try (SqliteStore store = SqliteStore.open(file())) {
      last =
          store
              .txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/a", new byte[] {1}))))
              .revision();
    }
    // As a format-1 build left it: its revision row is current (here: 10 ahead of the log, as the
    // floor must win),
    // and its rows have no checksums.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE log DROP COLUMN checksum");
      s.execute("UPDATE meta SET value = 1 WHERE name = 'format'");
      s.execute("UPDATE meta SET value = " + (last + 10) + " WHERE name = 'revision'");
    }
    try (SqliteStore store = SqliteStore.open(file())) {
      assertThat(store.currentRevision()).isEqualTo(last + 10);
      assertThat(
              store
                  .txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/b", new byte[] {2}))))
                  .revision())
          .isEqualTo(last + 11);
    }
    assertThat(meta("format")).as("upgraded: a format-1 or -2 build now refuses it").isEqualTo(3);
    assertThat(SqliteStore.check(file()).verified()).as("both rows got checksums").isEqualTo(2);
  }

  /**
   * A store from before checksums gets one for every row when opened, in one transaction, and is
   * served as before; --check tells such a store apart until then instead of calling it verified.
   */
  @Test
  void aFormatTwoStoreGetsChecksumsForEveryRowWhenOpened() throws Exception {
    try (SqliteStore store = SqliteStore.open(file())) {
      for (int i = 0; i < 2_500; i++) { // more than one page of the upgrade's fill
        store.txn(
            Txn.when(
                List.of(),
                List.of(
                    new Txn.Op.Put(
                        "/k/" + i % 1_000, ("v" + i).getBytes(StandardCharsets.UTF_8)))));
      }
      store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete("/k/7"))));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE log DROP COLUMN checksum");
      s.execute("UPDATE meta SET value = 2 WHERE name = 'format'");
    }
    var before = SqliteStore.check(file());
    assertThat(before.sound()).isTrue();
    assertThat(before.checksummed()).as("nothing to verify yet, and it says so").isFalse();

    try (SqliteStore store = SqliteStore.open(file())) {
      assertThat(store.get("/k/499"))
          .map(kv -> new String(kv.value(), StandardCharsets.UTF_8))
          .contains("v2499");
      assertThat(store.get("/k/7")).isEmpty();
      assertThat(store.range("/k/", 0).kvs()).hasSize(999);
      assertThat(
              store
                  .txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/new", new byte[] {1}))))
                  .succeeded())
          .isTrue();
    }
    assertThat(meta("format")).isEqualTo(3);
    var after = SqliteStore.check(file());
    assertThat(after.problems()).isEmpty();
    assertThat(after.checksummed()).isTrue();
    assertThat(after.verified())
        .as("every row, the tombstone and the write after the upgrade too")
        .isEqualTo(logRows());
  }

  @Test
  void aDamagedFileFailsWithAnErrorNamingIt() throws Exception {
    try (SqliteStore store = SqliteStore.open(file())) {
      for (int i = 0; i < 50; i++) {
        store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/" + i, new byte[2000]))));
      }
    }
    byte[] content = Files.readAllBytes(file());
    int pageSize = 4096;
    assertThat(content.length).isGreaterThan(8 * pageSize);
    Arrays.fill(
        content, 2 * pageSize, content.length, (byte) 0x5A); // keep the header and schema page
    Files.write(file(), content);
    assertThatThrownBy(
            () -> {
              try (SqliteStore store = SqliteStore.open(file())) {
                store.range("", 0);
              }
            })
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString());
  }

  @Test
  void aStoreOpenElsewhereIsRefused() {
    try (SqliteStore store = SqliteStore.open(file())) {
      assertThatThrownBy(() -> SqliteStore.open(file()))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining(file().toString());
    }
    SqliteStore.open(file()).close();
  }

  @Test
  void aSlowWatcherIsEndedWithoutStallingWriters() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    BlockingQueue<String> closed = new LinkedBlockingQueue<>();
    int capacity = 4;
    try (SqliteStore store = SqliteStore.open(file(), new SqliteStore.Options(capacity, 2))) {
      Watch watch =
          store.watch(
              "/",
              0,
              new WatchListener() {
                @Override
                public void onEvent(StoreEvent event) {
                  try {
                    release.await(); // stuck on the first event until the writes are done
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }

                @Override
                public void onCompacted(long compactedRevision) {}

                @Override
                public void onClosed(String reason) {
                  closed.add(reason);
                }
              });
      for (int i = 0; i < capacity + 2; i++) {
        store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/" + i, new byte[1]))));
      }
      release.countDown();
      assertThat(closed.poll(AWAIT_MS, TimeUnit.MILLISECONDS)).contains("fell behind");
      watch.close();
    }
  }

  @Test
  void compactionInManyStepsLeavesOnlyLiveRows() throws Exception {
    int keys = 20;
    try (SqliteStore store = SqliteStore.open(file())) {
      writeConcurrently(store, keys);
      Range before = store.range("", 0);
      assertThat(store.currentRevision()).isGreaterThan(2_000); // more than one compaction step
      store.compact(store.currentRevision());
      assertThat(store.range("", 0).kvs()).isEqualTo(before.kvs());
      assertThat(logRows()).isEqualTo(before.kvs().size());
      for (KeyValue kv : before.kvs()) {
        assertThat(store.get(kv.key())).contains(kv);
      }
    }
  }

  /** 25 writers, 100 transactions each, over a few keys, some deletes: group commit at work. */
  private static void writeConcurrently(SqliteStore store, int keys) throws Exception {
    List<Future<?>> done = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int t = 0; t < 25; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    String key = "/k/" + ((thread + i) % keys);
                    store.txn(
                        Txn.when(
                            List.of(),
                            List.of(
                                i % 10 == 9
                                    ? new Txn.Op.Delete(key)
                                    : new Txn.Op.Put(
                                        key, ("v" + i).getBytes(StandardCharsets.UTF_8)))));
                  }
                  return null;
                }));
      }
    }
    for (Future<?> f : done) {
      f.get(); // a writer's failure shows here
    }
  }

  private long logRows() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM log")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
