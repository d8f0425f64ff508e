package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The writer's SQL: applies one transaction, or one compaction step, inside the SQLite transaction
 * the writer opened. Statements are prepared once on the writer connection.
 */
final class TxnApplier {
  /** What one transaction did, and the events it produced, in op order. */
  record Applied(TxnResult result, List<StoreEvent> events) {}

  private final Path file;
  private final PreparedStatement latest;
  private final PreparedStatement insert;
  private final PreparedStatement setMeta;
  private final PreparedStatement changedRows;
  private final PreparedStatement supersededRows;
  private final PreparedStatement deleteSuperseded;
  private final PreparedStatement deleteTombstones;

  TxnApplier(Connection c, Path file) throws SQLException {
    this.file = file;
    latest = c.prepareStatement(LogReader.LATEST_SQL);
    insert =
        c.prepareStatement(
            "INSERT INTO log (revision, key, deleted, create_revision, version,"
                + " prev_revision, value, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    setMeta = c.prepareStatement("UPDATE meta SET value = ? WHERE name = ?");
    // Every row changed in (from, to] supersedes the older rows of its key: those go. The rows
    // at or below `from` were already reduced to live values by the previous compaction, so only
    // the keys changed since then need looking at.
    String superseded =
        "SELECT old.id FROM log AS n JOIN log AS old ON old.key = n.key AND old.revision < n.revision"
            + " WHERE n.revision > ? AND n.revision <= ?";
    // What a compaction step decides by, read whole to be verified first: the rows changed in
    // (from, to], and the older rows of their keys that the step deletes (each once, by id: a key
    // changed k times in the step joins its older rows k times over).
    changedRows =
        c.prepareStatement(
            "SELECT "
                + LogRow.columns("n")
                + " FROM log AS n WHERE n.revision > ? AND n.revision <= ?");
    supersededRows =
        c.prepareStatement(
            "SELECT l.id, "
                + LogRow.columns("l")
                + " FROM log AS l WHERE l.id IN ("
                + superseded
                + ")");
    // The rows verified are the rows deleted, by id: the join is run once.
    deleteSuperseded = c.prepareStatement("DELETE FROM log WHERE id = ?");
    // Then the tombstones themselves: at `to` the key simply does not exist.
    deleteTombstones =
        c.prepareStatement("DELETE FROM log WHERE deleted = 1 AND revision > ? AND revision <= ?");
  }

  /**
   * Applies {@code txn} as the transaction after revision {@code last}: if it writes anything, at
   * revision {@code last + 1}. Ops of one branch touch distinct keys (checked by the caller), so
   * each op sees the key as it was before the transaction.
   *
   * <p>Every row it reads is verified, and all are read before the first insert: a corrupt row is a
   * {@link dev.quartermaster.store.CorruptValueException} with nothing of this transaction written,
   * so the writer can refuse this one transaction and commit the rest of its batch, and a damaged
   * row's version or create revision is never carried on into a new row with a good checksum.
   */
  Applied apply(Txn txn, long last) throws SQLException {
    boolean holds = true;
    // What the compares read, for the ops on the same keys (a compare-and-set reads its key once).
    Map<String, Optional<LogRow>> read = new HashMap<>();
    for (Txn.Compare compare : txn.compares()) {
      holds &=
          switch (compare) {
            case Txn.Compare.ModRevision m ->
                readOnce(read, m.key()).map(LogRow::revision).orElse(0L) == m.modRevision();
          };
    }
    List<Txn.Op> ops = holds ? txn.onSuccess() : txn.onFailure();
    for (Txn.Op op : ops) {
      readOnce(read, op.key());
    }
    long rev = last + 1;
    List<KeyValue> written = new ArrayList<>();
    List<StoreEvent> events = new ArrayList<>();
    for (Txn.Op op : ops) {
      // Ops touch distinct keys and compares come before them, so a key read above is unchanged.
      Optional<LogRow> previous = readOnce(read, op.key());
      switch (op) {
        case Txn.Op.Put put -> {
          LogRow row =
              new LogRow(
                  rev,
                  put.key(),
                  false,
                  previous.map(LogRow::createRevision).orElse(rev),
                  previous.map(p -> p.version() + 1).orElse(1L),
                  previous.map(LogRow::revision).orElse(0L),
                  put.value().clone()); // the row's own: its key values share it (LogRow#kv)
          insert(row);
          KeyValue kv = row.kv();
          written.add(kv);
          events.add(
              new StoreEvent(StoreEvent.Type.PUT, kv, previous.map(LogRow::kv), put.audience()));
        }
        case Txn.Op.Delete delete -> {
          if (previous.isPresent()) { // deleting an absent key changes nothing
            LogRow row =
                new LogRow(rev, delete.key(), true, 0, 0, previous.get().revision(), new byte[0]);
            insert(row);
            events.add(
                new StoreEvent(
                    StoreEvent.Type.DELETE, row.kv(), previous.map(LogRow::kv), delete.audience()));
          }
        }
      }
    }
    // Like etcd, a transaction that changed nothing does not use up a revision.
    long revision = events.isEmpty() ? last : rev;
    return new Applied(new TxnResult(holds, revision, written), events);
  }

  void setMeta(String name, long value) throws SQLException {
    setMeta.setLong(1, value);
    setMeta.setString(2, name);
    setMeta.executeUpdate();
  }

  /**
   * Compacts from revision {@code from} (the current compacted revision) to {@code to}. Every row
   * the step decides by is verified first: a damaged key, revision or deleted flag would have it
   * delete a live value or keep a stale one, so a corrupt row stops the step, naming its key,
   * before anything is deleted.
   */
  void compact(long from, long to) throws SQLException {
    changedRows.setLong(1, from);
    changedRows.setLong(2, to);
    try (ResultSet rs = changedRows.executeQuery()) {
      while (rs.next()) {
        LogRow.read(rs, 1, file);
      }
    }
    List<Long> superseded = new ArrayList<>();
    supersededRows.setLong(1, from);
    supersededRows.setLong(2, to);
    try (ResultSet rs = supersededRows.executeQuery()) {
      while (rs.next()) {
        LogRow.read(rs, 2, file);
        superseded.add(rs.getLong(1));
      }
    }
    for (long id : superseded) {
      deleteSuperseded.setLong(1, id);
      deleteSuperseded.executeUpdate();
    }
    deleteTombstones.setLong(1, from);
    deleteTombstones.setLong(2, to);
    deleteTombstones.executeUpdate();
    setMeta("compacted", to);
  }

  private Optional<LogRow> readOnce(Map<String, Optional<LogRow>> read, String key)
      throws SQLException {
    var known = read.get(key);
    if (known != null) {
      return known;
    }
    var row = live(key);
    read.put(key, row);
    return row;
  }

  private Optional<LogRow> live(String key) throws SQLException {
    return LogReader.latest(latest, key, file).filter(r -> !r.deleted());
  }

  private void insert(LogRow row) throws SQLException {
    byte[] key = Keys.encode(row.key());
    insert.setLong(1, row.revision());
    insert.setBytes(2, key);
    insert.setInt(3, row.deleted() ? 1 : 0);
    insert.setLong(4, row.createRevision());
    insert.setLong(5, row.version());
    insert.setLong(6, row.prevRevision());
    insert.setBytes(7, row.value());
    insert.setLong(8, RowChecksum.of(row, key));
    insert.executeUpdate();
  }
}
