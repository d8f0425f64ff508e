package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import dev.quartermaster.store.compaction.HistorySizes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The single-machine {@link Store}: one SQLite file in WAL mode with {@code synchronous=FULL}, so a
 * transaction is durable when COMMIT returns, and only then acknowledged.
 *
 * <p><b>Data model.</b> One append-only {@code log} table holds every change: a row per key per
 * transaction, with the key's create revision, version, a deleted flag (tombstones) and the
 * revision of the value it replaced. Rows have an {@code INTEGER PRIMARY KEY id} (append order) and
 * a {@code revision}: all rows written by one transaction share that transaction's revision, as in
 * etcd, and are told apart by id, which also keeps their op order. {@code (key, revision)} is
 * unique because a transaction touches a key at most once. A key's value at revision R is its
 * newest row at or below R, unless that is a tombstone. Each row carries a CRC32C of its columns
 * ({@link RowChecksum}), verified wherever a row is read: a mismatch is a {@link
 * dev.quartermaster.store.CorruptValueException} naming the key, never a value served. A {@code
 * meta} table holds the format, the last committed revision and the compacted revision; see {@link
 * Schema}.
 *
 * <p><b>Concurrency.</b> One writer thread owns the only writing connection and commits queued
 * transactions in groups ({@link Writer}); reads run on a small pool of read-only connections, each
 * in its own WAL snapshot ({@link Readers}). Compaction at C removes, in steps, every row at or
 * below C that a newer row at or below C supersedes, and every tombstone at or below C, so reads at
 * C or later are unchanged. Watches are fed by the writer after each commit ({@link WatchHub}) and
 * deliver on their own virtual threads ({@link SqliteWatch}).
 *
 * <p>A lock file next to the database keeps a second store (in this or another process) from
 * opening the same file, since the writer's revision counter lives in memory.
 */
public final class SqliteStore implements Store, HistorySizes {
  static final int BUSY_TIMEOUT_MS = 10_000;

  /**
   * Tuning knobs.
   *
   * @param watchQueueCapacity how many undelivered live events a watch may hold before it is ended
   *     as having fallen behind
   * @param maxReaders how many reads may run against SQLite at once
   * @param mayWait how long a transaction that may wait (a heartbeat: {@link
   *     dev.quartermaster.store.Txn.Urgency#MAY_WAIT}) waits for others to share its commit
   */
  public record Options(int watchQueueCapacity, int maxReaders, Duration mayWait) {
    /**
     * At 10,000 nodes, 1,000 beats a second: 100 ms lets ~100 share a commit, and a beat is late by
     * at most 1 % of its 10 s period.
     */
    public static final Duration MAY_WAIT = Duration.ofMillis(100);

    public Options {
      if (watchQueueCapacity < 1 || maxReaders < 1) {
        throw new IllegalArgumentException("watchQueueCapacity and maxReaders must be >= 1");
      }
      if (mayWait.isNegative()) {
        throw new IllegalArgumentException("mayWait must not be negative");
      }
    }

    public Options(int watchQueueCapacity, int maxReaders) {
      this(watchQueueCapacity, maxReaders, MAY_WAIT);
    }

    public static Options defaults() {
      return new Options(10_000, 8);
    }

    public Options withMayWait(Duration wait) {
      return new Options(watchQueueCapacity, maxReaders, wait);
    }
  }

  private final Path file;
  private final Options options;
  private final FileGuard guard;
  private final Connection writeConnection;
  private final Writer writer;
  private final Readers readers;
  private final LogReader log;
  private final WatchHub hub;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SqliteStore(
      Path file, Options options, FileGuard guard, Connection writeConnection, Schema.Meta meta)
      throws SQLException {
    this.file = file;
    this.options = options;
    this.guard = guard;
    this.writeConnection = writeConnection;
    this.readers = new Readers(file, options.maxReaders());
    this.log = new LogReader(file, readers);
    this.hub = new WatchHub(file, meta.revision());
    this.writer = new Writer(file, writeConnection, hub, meta, options.mayWait());
  }

  /** Opens the store in {@code file}, creating it if the file does not exist or is empty. */
  public static SqliteStore open(Path file) {
    return open(file, Options.defaults());
  }

  /**
   * Opens the store in {@code file}, creating it if the file does not exist or is empty.
   *
   * @throws StoreException naming the file, if it is not a store of this format, is damaged, or is
   *     in use by another open store; such a file is never modified
   */
  public static SqliteStore open(Path file, Options options) {
    return open(file, options, List.of());
  }

  /**
   * Opens the store in {@code file} as {@link #open(Path, Options)} does, but refuses to create a
   * new one while any of {@code evidence} exists: paths (such as an admin token) whose presence
   * shows a store was here before, for data dirs that predate the store's own marker.
   */
  public static SqliteStore open(Path file, Options options, List<Path> evidence) {
    Path path = file.toAbsolutePath();
    FileGuard guard = FileGuard.acquire(path);
    boolean existed = Files.exists(path);
    Connection c = null;
    try {
      c = StoreFile.openWriter(path);
      Schema.Meta meta = StoreFile.prepare(c, path, evidence);
      return new SqliteStore(path, options, guard, c, meta);
    } catch (SQLException e) {
      StoreFile.closeQuietly(c);
      StoreFile.removeIfCreated(path, existed);
      guard.release();
      throw Errors.wrap(path, "open", e);
    } catch (RuntimeException e) {
      StoreFile.closeQuietly(c);
      StoreFile.removeIfCreated(path, existed);
      guard.release();
      throw e;
    }
  }

  /**
   * Runs SQLite's full integrity check on {@code file} and verifies every log row against its
   * checksum, read-only (safe while a store serves it).
   */
  public static CheckReport check(Path file) {
    return IntegrityCheck.full(file.toAbsolutePath());
  }

  /** The marker file that records which store lives in {@code file}. */
  public static Path markerOf(Path file) {
    return StoreMarker.of(file.toAbsolutePath());
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  @Override
  public Optional<KeyValue> get(String key) {
    Objects.requireNonNull(key, "key");
    return log.get(key);
  }

  @Override
  public OptionalLong modRevision(String key) {
    Objects.requireNonNull(key, "key");
    return log.modRevision(key);
  }

  @Override
  public Range range(String prefix, long revision) {
    Objects.requireNonNull(prefix, "prefix");
    return log.range(prefix, revision);
  }

  @Override
  public Range range(String prefix, long revision, String startAfter, int limit) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, got " + limit);
    }
    return log.range(prefix, revision, startAfter, limit);
  }

  @Override
  public TxnResult txn(Txn txn) {
    validate(txn);
    return writer.txn(txn);
  }

  @Override
  public Watch watch(String prefix, long afterRevision, WatchListener listener) {
    return watch(prefix, Optional.empty(), afterRevision, listener);
  }

  @Override
  public Watch watch(String prefix, String route, long afterRevision, WatchListener listener) {
    return watch(
        prefix, Optional.of(Objects.requireNonNull(route, "route")), afterRevision, listener);
  }

  private Watch watch(
      String prefix, Optional<String> route, long afterRevision, WatchListener listener) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(listener, "listener");
    if (afterRevision < 0) {
      throw new IllegalArgumentException("afterRevision must be >= 0, got " + afterRevision);
    }
    var watch =
        new SqliteWatch(
            prefix, route, afterRevision, listener, options.watchQueueCapacity(), log, hub);
    watch.start(hub.register(watch));
    return watch;
  }

  @Override
  public void compact(long revision) {
    if (revision < 0) {
      throw new IllegalArgumentException("revision must be >= 0, got " + revision);
    }
    writer.compact(revision);
  }

  /**
   * The history above {@code after}: superseded values, deleted values and tombstones, grouped by
   * the revision whose compaction frees them; one indexed scan of the rows above {@code after},
   * reading blob sizes, never blobs. See {@link HistorySizes#newestFirst}.
   */
  @Override
  public List<HistorySizes.Freed> newestFirst(long after, long enough) {
    if (after < 0) {
      throw new IllegalArgumentException("after must be >= 0, got " + after);
    }
    return log.historySizes(after, enough);
  }

  @Override
  public long currentRevision() {
    return writer.revision();
  }

  /** SQLite transactions committed for writes so far: a group commit is one. */
  public long commits() {
    return writer.commits();
  }

  /** Writes the writer holds while they wait for company. */
  int writesWaitingForCompany() {
    return writer.waitingForCompany();
  }

  @Override
  public long compactedRevision() {
    return writer.compacted();
  }

  /** Lets queued writes finish, ends every watch with onClosed, and releases the file. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    writer.stop();
    hub.endAll("store " + file + " closed", true, writer.revision());
    readers.close();
    StoreFile.closeQuietly(writeConnection);
    guard.release();
  }

  /**
   * Refuses what etcd refuses, so both stores behave alike: an empty key, a negative revision in a
   * compare, and one branch touching a key twice (its outcome would depend on op order).
   */
  private static void validate(Txn txn) {
    for (Txn.Compare compare : txn.compares()) {
      requireKey(compare.key());
      if (compare instanceof Txn.Compare.ModRevision m && m.modRevision() < 0) {
        throw new IllegalArgumentException("compare on " + m.key() + ": modRevision must be >= 0");
      }
    }
    for (List<Txn.Op> branch : List.of(txn.onSuccess(), txn.onFailure())) {
      Set<String> keys = new HashSet<>();
      for (Txn.Op op : branch) {
        requireKey(op.key());
        if (!keys.add(op.key())) {
          throw new IllegalArgumentException(
              "transaction touches key " + op.key() + " twice in one branch");
        }
      }
    }
  }

  private static void requireKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
  }
}
