package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.CompactedException;
import dev.quartermaster.store.FutureRevisionException;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.compaction.HistorySizes;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** The read queries over the log, each run in one snapshot on a reader connection. */
final class LogReader {
  /** One page of history for a watch's replay, read in the same snapshot as {@code compacted}. */
  record HistoryPage(long compacted, List<Change> changes) {}

  /** A logged change and its position, so the next page can continue after it. */
  record Change(long id, StoreEvent event) {}

  private final Path file;
  private final Readers readers;

  LogReader(Path file, Readers readers) {
    this.file = file;
    this.readers = readers;
  }

  Optional<KeyValue> get(String key) {
    return readers.readOne(
        "get " + key, c -> latest(c, key, file).filter(r -> !r.deleted()).map(LogRow::kv));
  }

  /**
   * The revision of the key's newest row unless it is a tombstone. It reads no value: a large value
   * lies in overflow pages that only a read of its column visits, and its checksum guards the bytes
   * a read hands on, of which this hands on none.
   */
  OptionalLong modRevision(String key) {
    return readers.readOne(
        "revision of " + key,
        c -> {
          var ps = c.prepared(HEAD_SQL);
          ps.setBytes(1, Keys.encode(key));
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getInt(2) == 0
                ? OptionalLong.of(rs.getLong(1))
                : OptionalLong.empty();
          }
        });
  }

  private static final String HEAD_SQL =
      "SELECT l.revision, l.deleted FROM log AS l WHERE l.key = ? ORDER BY l.revision DESC LIMIT 1";

  /** Selects the newest row of a key, tombstone or not; shared with the writer. */
  static final String LATEST_SQL =
      "SELECT "
          + LogRow.columns("l")
          + " FROM log AS l WHERE l.key = ? ORDER BY l.revision DESC LIMIT 1";

  private static Optional<LogRow> latest(ReaderConnection c, String key, Path file)
      throws SQLException {
    return latest(c.prepared(LATEST_SQL), key, file);
  }

  /** Runs {@link #LATEST_SQL}, prepared by the caller; the row is verified against its checksum. */
  static Optional<LogRow> latest(PreparedStatement ps, String key, Path file) throws SQLException {
    ps.setBytes(1, Keys.encode(key));
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(LogRow.read(rs, 1, file)) : Optional.empty();
    }
  }

  Range range(String prefix, long revision) {
    return range(prefix, revision, "", Integer.MAX_VALUE);
  }

  /** As {@link #range(String, long)}, from after {@code startAfter}, at most {@code limit} keys. */
  Range range(String prefix, long revision, String startAfter, int limit) {
    if (revision < 0) {
      throw new IllegalArgumentException("revision must be >= 0, got " + revision);
    }
    return readers.read(
        "range " + prefix,
        c -> {
          Schema.Meta meta = Schema.readMeta(c, file);
          long at = revision == 0 ? meta.revision() : revision;
          if (at > meta.revision()) {
            throw new FutureRevisionException(at, meta.revision());
          }
          if (at < meta.compacted()) {
            throw new CompactedException(at, meta.compacted());
          }
          return new Range(rangeAt(c, prefix, at, startAfter, limit, file), meta.revision());
        });
  }

  /**
   * For each key under the prefix, its newest row at or below {@code at}, unless that row is a
   * tombstone. The inner query finds (key, revision) pairs from the key index alone; only the
   * winning rows are then fetched with their values. Tombstones are skipped here, after their
   * checksum is verified, not by the query: a flipped deleted flag would otherwise hide a live
   * object from every list without a word.
   */
  private static List<KeyValue> rangeAt(
      ReaderConnection c, String prefix, long at, String startAfter, int limit, Path file)
      throws SQLException {
    KeyRange keys = KeyRange.of(prefix);
    boolean paged = limit != Integer.MAX_VALUE;
    String sql =
        "SELECT "
            + LogRow.columns("l")
            + " FROM (SELECT key AS k, MAX(revision) AS r FROM log"
            + " WHERE "
            + keys.condition("key")
            + " AND key > ? AND revision <= ? GROUP BY key"
            + (paged ? " ORDER BY key LIMIT ?" : "")
            + ") AS latest"
            + " JOIN log AS l ON l.key = latest.k AND l.revision = latest.r ORDER BY l.key";
    PreparedStatement ps = c.prepared(sql);
    List<KeyValue> kvs = new ArrayList<>();
    String after = startAfter;
    // A page of the query may hold tombstones, skipped here: read on until the page is full or the
    // keys run out.
    while (true) {
      String from = after;
      int next = keys.bind(ps, 1);
      ps.setBytes(next++, Keys.encode(after));
      ps.setLong(next++, at);
      int asked = limit - kvs.size();
      if (paged) {
        ps.setInt(next, asked);
      }
      int rows = 0;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows++;
          LogRow row = LogRow.read(rs, 1, file);
          after = row.key();
          if (!row.deleted()) {
            kvs.add(row.kv());
          }
        }
      }
      if (!paged || rows < asked || kvs.size() >= limit) {
        return kvs;
      }
      if (after.equals(from)) {
        throw new IllegalStateException("a paged range did not move past " + after);
      }
    }
  }

  /**
   * Changes under {@code prefix} with revision at most {@code upTo} that come after log position
   * {@code (fromRevision, fromId)}, in log order, at most {@code limit} of them. Position {@code
   * (r, Long.MAX_VALUE)} means "everything after revision r".
   */
  HistoryPage history(String prefix, long upTo, long fromRevision, long fromId, int limit) {
    return readers.read(
        "watch replay of " + prefix,
        c -> {
          long compacted = Schema.readMeta(c, file).compacted();
          KeyRange keys = KeyRange.of(prefix);
          // The previous row is read whole, as its checksum covers every column.
          String sql =
              "SELECT l.id, "
                  + LogRow.columns("l")
                  + ", "
                  + LogRow.columns("p")
                  + " FROM log AS l LEFT JOIN log AS p ON p.key = l.key AND p.revision = l.prev_revision"
                  + " WHERE (l.revision, l.id) > (?, ?) AND l.revision <= ? AND "
                  + keys.condition("l.key")
                  + " ORDER BY l.revision, l.id LIMIT ?";
          PreparedStatement ps = c.prepared(sql);
          ps.setLong(1, fromRevision);
          ps.setLong(2, fromId);
          ps.setLong(3, upTo);
          int next = keys.bind(ps, 4);
          ps.setInt(next, limit);
          List<Change> changes = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              changes.add(new Change(rs.getLong(1), toEvent(rs, file)));
            }
          }
          return new HistoryPage(compacted, changes);
        });
  }

  /**
   * Each change above {@code after} that made something history, with the bytes (key and value) it
   * made history: the value it replaced or deleted (found by {@code prev_revision} through the
   * (key, revision) index) and, for a delete, its own tombstone. Rows at or below the compacted
   * revision are all current values, so only changes above it can have made history. Newest first,
   * by the revision index; {@code length()} reads a blob's size without reading the blob.
   */
  private static final String HISTORY_SQL =
      "SELECT n.revision,"
          + " CASE WHEN n.deleted = 1 THEN length(n.key) ELSE 0 END + COALESCE(length(p.key) + length(p.value), 0)"
          + " FROM log AS n LEFT JOIN log AS p ON p.key = n.key AND p.revision = n.prev_revision"
          + " WHERE n.revision > ? AND (n.prev_revision > 0 OR n.deleted = 1)"
          + " ORDER BY n.revision DESC";

  /**
   * See {@link HistorySizes#newestFirst}; reads one snapshot, stopping once past {@code enough}.
   */
  List<HistorySizes.Freed> historySizes(long after, long enough) {
    return readers.read(
        "history sizes",
        c -> {
          List<HistorySizes.Freed> freed = new ArrayList<>();
          PreparedStatement ps = c.prepared(HISTORY_SQL);
          ps.setLong(1, after);
          try (ResultSet rs = ps.executeQuery()) {
            long revision = 0;
            long bytes = 0;
            long running = 0;
            while (rs.next()) {
              long r = rs.getLong(1);
              if (r != revision && revision != 0) {
                freed.add(new HistorySizes.Freed(revision, bytes));
                running += bytes;
                if (running > enough) {
                  return freed;
                }
                bytes = 0;
              }
              revision = r;
              bytes += rs.getLong(2);
            }
            if (revision != 0) {
              freed.add(new HistorySizes.Freed(revision, bytes));
            }
          }
          return freed;
        });
  }

  /**
   * Column 2 on: the change's row, then (all NULL when compaction removed it) the row it replaced.
   */
  private static StoreEvent toEvent(ResultSet rs, Path file) throws SQLException {
    LogRow row = LogRow.read(rs, 2, file);
    // The previous value is gone when compaction removed it; etcd reports no prev_kv then too.
    Optional<KeyValue> previous = Optional.empty();
    int previousFirst = 2 + LogRow.COLUMNS;
    if (rs.getObject(previousFirst) != null) {
      previous = Optional.of(LogRow.read(rs, previousFirst, file).kv());
    }
    return new StoreEvent(
        row.deleted() ? StoreEvent.Type.DELETE : StoreEvent.Type.PUT, row.kv(), previous);
  }
}
