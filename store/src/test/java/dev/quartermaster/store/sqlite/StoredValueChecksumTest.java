package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.store.CorruptValueException;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.WatchListener;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A byte changed inside a stored row, by someone editing the data file or by a disk handing back
 * other bytes, is refused loudly by every path that reads it, naming the key: a get, a range, a
 * watch's replay (of the change or of the value it replaced), compaction, a write over it, and
 * {@code --check}. Never served, and never served as another object.
 *
 * <p>The edits are made as an attacker would: a plain JDBC connection to the closed store's file
 * changes the row and leaves its checksum alone. {@link #naiveRead} reads the way a store without
 * checksums would, to show each edit is the silent kind: well-formed JSON naming another object,
 * which SQLite's own integrity check passes.
 */
@SuppressWarnings("try")
class StoredValueChecksumTest {
  private static final String PREFIX = "/registry/deviceclasses/";
  private static final String KEY = PREFIX + "gpu";
  private static final String OBJECT =
      "{\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu\"},\"spec\":{\"driver\":\"gpu.nvidia.com\"}}";
  private static final String RENAMED = OBJECT.replace("\"name\":\"gpu\"", "\"name\":\"gpv\"");

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("store.db");
  }

  /**
   * Puts a, KEY and z in that order (revisions 1, 2, 3) and closes the store; returns KEY's
   * revision.
   */
  private long populate() {
    try (var store = SqliteStore.open(file())) {
      put(store, PREFIX + "a", "{\"metadata\":{\"name\":\"a\"}}");
      long revision = put(store, KEY, OBJECT);
      put(store, PREFIX + "z", "{\"metadata\":{\"name\":\"z\"}}");
      return revision;
    }
  }

  private static long put(SqliteStore store, String key, String value) {
    return store
        .txn(
            Txn.when(
                List.of(), List.of(new Txn.Op.Put(key, value.getBytes(StandardCharsets.UTF_8)))))
        .revision();
  }

  private Connection jdbc() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  /**
   * Changes the 'u' of the name in {@code key}'s row at {@code revision} to 'v', as an edit of the
   * file would.
   */
  private void renameInPlace(String key, long revision) throws Exception {
    try (Connection c = jdbc();
        PreparedStatement read =
            c.prepareStatement("SELECT value FROM log WHERE key = ? AND revision = ?");
        PreparedStatement write =
            c.prepareStatement("UPDATE log SET value = ? WHERE key = ? AND revision = ?")) {
      read.setBytes(1, key.getBytes(StandardCharsets.UTF_8));
      read.setLong(2, revision);
      byte[] value;
      try (ResultSet rs = read.executeQuery()) {
        assertThat(rs.next()).as("row " + key + "@" + revision).isTrue();
        value = rs.getBytes(1);
      }
      int at =
          new String(value, StandardCharsets.UTF_8).indexOf("\"name\":\"gpu\"")
              + "\"name\":\"gp".length();
      value[at] = 'v'; // one byte
      write.setBytes(1, value);
      write.setBytes(2, key.getBytes(StandardCharsets.UTF_8));
      write.setLong(3, revision);
      assertThat(write.executeUpdate()).isEqualTo(1);
    }
  }

  /** The newest value of {@code key} read as a store without checksums reads it. */
  private String naiveRead(String key) throws Exception {
    try (Connection c = jdbc();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT value FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1")) {
      ps.setBytes(1, key.getBytes(StandardCharsets.UTF_8));
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return new String(rs.getBytes(1), StandardCharsets.UTF_8);
      }
    }
  }

  private long logRows() throws Exception {
    try (Connection c = jdbc();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM log")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The refusal every read path must give: the type, the key, the revision and the file. */
  private void assertNamesTheRow(Throwable e, String key, long revision) {
    assertThat(e).isInstanceOf(CorruptValueException.class);
    var corrupt = (CorruptValueException) e;
    assertThat(corrupt.key()).isEqualTo(key);
    assertThat(corrupt.revision()).isEqualTo(revision);
    assertThat(corrupt.getMessage())
        .contains("key " + key + " at revision " + revision)
        .contains("corrupt")
        .contains(file().toAbsolutePath().toString())
        .contains("Restore");
  }

  @Test
  void theEditIsTheSilentKindThatOnlyTheChecksumSees() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision);

    assertThat(naiveRead(KEY))
        .as("without checksums: another object, well formed")
        .isEqualTo(RENAMED);
    var report = SqliteStore.check(file());
    assertThat(report.problems())
        .as("SQLite's integrity_check passes it; only the checksum line is there")
        .singleElement()
        .asString()
        .startsWith(
            "key "
                + KEY
                + " at revision "
                + revision
                + " (log row 2) is corrupt: its CRC32C is 0x");
    assertThat(report.verified()).isEqualTo(2);
  }

  @Test
  void getAndRangeRefuseTheValueNamingKeyRevisionAndFile() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision);

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.get(KEY)), KEY, revision);
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.range(PREFIX, 0)),
          KEY,
          revision);
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.range(PREFIX, revision)),
          KEY,
          revision);
      // The damage is confined to its row: everything else is served.
      assertThat(store.get(PREFIX + "a")).isPresent();
      assertThat(store.range(PREFIX, revision - 1).kvs()).hasSize(1);
    }
  }

  @Test
  void aWatchReplayEndsLoudlyNamingTheCorruptChangesKey() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision);

    try (var store = SqliteStore.open(file())) {
      var heard = new Heard();
      try (var watch = store.watch(PREFIX, 0, heard)) {
        // A page of history is read whole, so the change before it is not delivered either.
        assertThat(heard.next())
            .asString()
            .startsWith("closed: watch failed: store " + file().toAbsolutePath())
            .contains("key " + KEY + " at revision " + revision + " is corrupt");
        assertThat(heard.rest()).as("nothing after it, and nothing renamed").isEmpty();
      }
    }
  }

  @Test
  void aWatchReplayRefusesACorruptPreviousValueToo() throws Exception {
    long first = populate();
    long second;
    try (var store = SqliteStore.open(file())) {
      second = put(store, KEY, OBJECT.replace("gpu.nvidia.com", "gpu.example.com"));
    }
    renameInPlace(KEY, first);

    try (var store = SqliteStore.open(file())) {
      assertThat(store.get(KEY)).as("the current value is intact").isPresent();
      var heard = new Heard();
      try (var watch = store.watch(PREFIX, second - 1, heard)) {
        assertThat(heard.next())
            .asString()
            .contains("key " + KEY + " at revision " + first + " is corrupt");
      }
    }
  }

  @Test
  void compactionRefusesNamingTheKeyAndDeletesNothing() throws Exception {
    long first = populate();
    long second;
    try (var store = SqliteStore.open(file())) {
      second = put(store, KEY, OBJECT.replace("gpu.nvidia.com", "gpu.example.com"));
    }
    renameInPlace(KEY, first); // the superseded row compaction would delete
    long rows = logRows();

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.compact(second)),
          KEY,
          first);
      assertThat(store.compactedRevision()).isZero();
    }
    assertThat(logRows()).isEqualTo(rows);
  }

  @Test
  void compactionRefusesACorruptChangeItDecidesByToo() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision); // a current value: kept by compaction, but what it decides by

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(
              CorruptValueException.class, () -> store.compact(store.currentRevision())),
          KEY,
          revision);
      assertThat(store.compactedRevision()).isZero();
    }
  }

  @Test
  void aWriteOverACorruptValueIsRefusedAloneWhileTheWritesBatchedWithItCommit() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision);

    try (var store = SqliteStore.open(file())) {
      long before = store.currentRevision();
      List<Future<Long>> others = new ArrayList<>();
      Future<Long> over;
      try (var pool = Executors.newFixedThreadPool(16)) {
        for (int i = 0; i < 40; i++) {
          String key = PREFIX + "other-" + i;
          others.add(pool.submit(() -> put(store, key, "{}")));
        }
        over = pool.submit(() -> put(store, KEY, OBJECT));
        for (int i = 40; i < 80; i++) {
          String key = PREFIX + "other-" + i;
          others.add(pool.submit(() -> put(store, key, "{}")));
        }
      }
      var refused = catchThrowableOfType(java.util.concurrent.ExecutionException.class, over::get);
      assertNamesTheRow(refused.getCause(), KEY, revision);
      for (var other : others) {
        assertThat(other.get()).isGreaterThan(before);
      }
      assertThat(store.currentRevision())
          .as("every other write took a revision, the refused one none")
          .isEqualTo(before + 80);
      assertThatThrownBy(() -> store.txn(Txn.when(List.of(), List.of(new Txn.Op.Delete(KEY)))))
          .isInstanceOf(CorruptValueException.class);
    }
  }

  @Test
  void aChangedKeyByteIsCaughtNotServedAsARenamedObject() throws Exception {
    long revision = populate();
    try (Connection c = jdbc();
        Statement s = c.createStatement()) {
      assertThat(
              s.executeUpdate(
                  "UPDATE log SET key = CAST('"
                      + PREFIX
                      + "gpv' AS BLOB) WHERE revision = "
                      + revision))
          .isEqualTo(1);
    }

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.range(PREFIX, 0)),
          PREFIX + "gpv",
          revision);
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.get(PREFIX + "gpv")),
          PREFIX + "gpv",
          revision);
    }
  }

  @Test
  void aFlippedDeletedFlagDoesNotHideTheObjectSilently() throws Exception {
    long revision = populate();
    try (Connection c = jdbc();
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("UPDATE log SET deleted = 1 WHERE revision = " + revision))
          .isEqualTo(1);
    }

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.get(KEY)), KEY, revision);
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.range(PREFIX, 0)),
          KEY,
          revision);
    }
  }

  /**
   * A byte of the value changed in the file itself, not through SQL: SQLite's quick check at open
   * passes it.
   */
  @Test
  void aByteChangedOnDiskIsCaught() throws Exception {
    String canary = "{\"metadata\":{\"name\":\"canary-5f3a9c0e\"}}";
    long revision;
    try (var store = SqliteStore.open(file())) {
      revision = put(store, PREFIX + "canary", canary);
    }
    byte[] content = Files.readAllBytes(file());
    byte[] needle = "canary-5f3a9c0e".getBytes(StandardCharsets.UTF_8);
    List<Integer> found = new ArrayList<>();
    for (int i = 0; i + needle.length <= content.length; i++) {
      if (java.util.Arrays.equals(content, i, i + needle.length, needle, 0, needle.length)) {
        found.add(i);
      }
    }
    assertThat(found)
        .as("the value is in the file once (the clean close checkpointed the WAL)")
        .hasSize(1);
    try (var raf = new RandomAccessFile(file().toFile(), "rw")) {
      raf.seek(found.getFirst());
      raf.write('k'); // canary -> kanary
    }

    try (var store = SqliteStore.open(file())) {
      assertNamesTheRow(
          catchThrowableOfType(CorruptValueException.class, () -> store.get(PREFIX + "canary")),
          PREFIX + "canary",
          revision);
    }
    assertThat(SqliteStore.check(file()).problems())
        .singleElement()
        .asString()
        .contains(PREFIX + "canary");
  }

  @Test
  void checkListsEveryCorruptRowByKeyAndRevision() throws Exception {
    long revision = populate();
    renameInPlace(KEY, revision);
    try (Connection c = jdbc();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE log SET value = CAST('{}' AS BLOB) WHERE revision = 3");
    }

    var report = SqliteStore.check(file());
    assertThat(report.sound()).isFalse();
    assertThat(report.verified()).isEqualTo(1);
    assertThat(report.problems()).hasSize(2);
    assertThat(report.problems().get(0))
        .startsWith("key " + KEY + " at revision " + revision + " ");
    assertThat(report.problems().get(1)).startsWith("key " + PREFIX + "z at revision 3 ");
  }

  /** What a watch told, in order: each event, then "closed: reason" or "compacted". */
  private static final class Heard implements WatchListener {
    private final BlockingQueue<Object> told = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(StoreEvent event) {
      told.add(event);
    }

    @Override
    public void onCompacted(long compactedRevision) {
      told.add("compacted");
    }

    @Override
    public void onClosed(String reason) {
      told.add("closed: " + reason);
    }

    Object next() throws InterruptedException {
      Object next = told.poll(30, TimeUnit.SECONDS);
      assertThat(next).as("the watch told something").isNotNull();
      return next;
    }

    List<Object> rest() {
      List<Object> rest = new ArrayList<>();
      told.drainTo(rest);
      return rest;
    }
  }
}
