package dev.quartermaster.store.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import org.sqlite.SQLiteConfig;

/**
 * A small pool of read-only connections. In WAL mode each runs its own snapshot concurrently with
 * the writer; the permit count bounds how many reads hit SQLite at once.
 */
final class Readers implements AutoCloseable {
  /** Work done inside one read transaction, so everything it reads is one consistent snapshot. */
  interface Work<T> {
    T run(ReaderConnection c) throws SQLException;
  }

  private final Path file;
  private final int maxReaders;
  private final Semaphore permits;
  private final ConcurrentLinkedDeque<ReaderConnection> idle = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  Readers(Path file, int maxReaders) {
    this.file = file;
    this.maxReaders = maxReaders;
    this.permits = new Semaphore(maxReaders);
  }

  /** Runs {@code work}, any number of statements, in one snapshot. */
  <T> T read(String action, Work<T> work) {
    return read(action, work, true);
  }

  /**
   * Runs {@code work}, which runs one statement and closes its result set: a lone statement is its
   * own snapshot, from its first step to its reset, so no transaction is begun and ended around it
   * (two more statements for each point read, a fifth of its CPU).
   */
  <T> T readOne(String action, Work<T> work) {
    return read(action, work, false);
  }

  private <T> T read(String action, Work<T> work, boolean snapshot) {
    if (closed) {
      throw Errors.closed(file);
    }
    permits.acquireUninterruptibly();
    ReaderConnection c = null;
    boolean healthy = false;
    try {
      if (closed) { // close() may have run while this read waited for a permit
        throw Errors.closed(file);
      }
      c = borrow();
      if (!snapshot) {
        var result = work.run(c);
        healthy = true;
        return result;
      }
      c.prepared("BEGIN").execute();
      try {
        return work.run(c);
      } finally {
        // A read transaction has nothing to commit; ending it releases the snapshot. Only a
        // connection whose transaction ended cleanly goes back to the pool.
        c.prepared("ROLLBACK").execute();
        healthy = true;
      }
    } catch (SQLException e) {
      throw closed ? Errors.closed(file) : Errors.wrap(file, action, e);
    } finally {
      giveBack(c, healthy);
      permits.release();
    }
  }

  private ReaderConnection borrow() throws SQLException {
    ReaderConnection c = idle.pollFirst();
    return c != null ? c : open();
  }

  private ReaderConnection open() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(SqliteStore.BUSY_TIMEOUT_MS);
    config.setGetGeneratedKeys(false); // readers insert nothing; no pattern match per statement
    // Never CREATE: a reader that opens after the file was removed (a late read racing a close and
    // a
    // clean-up) must fail, not leave a new, empty store.db behind.
    config.resetOpenMode(org.sqlite.SQLiteOpenMode.CREATE);
    Connection c = SqliteConnections.open(config, file);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA query_only = true"); // a reader must never write, even by mistake
    }
    return new ReaderConnection(c);
  }

  /** Keeps a connection for reuse unless the store closed or the connection may be broken. */
  private void giveBack(ReaderConnection c, boolean healthy) {
    if (c == null) {
      return;
    }
    if (healthy && !closed) {
      idle.addFirst(c);
      if (!closed) {
        return;
      }
      // close() ran meanwhile and may have missed this connection.
      if (!idle.remove(c)) {
        return;
      }
    }
    closeQuietly(c);
  }

  /**
   * Refuses new reads, waits for the reads in flight to end (they hold their permits), then closes
   * every connection: once this returns nothing of the store touches its files (a read still
   * running would recreate a WAL file under whoever removes the directory next).
   */
  @Override
  public void close() {
    closed = true;
    permits.acquireUninterruptibly(maxReaders);
    try {
      for (ReaderConnection c; (c = idle.pollFirst()) != null; ) {
        closeQuietly(c);
      }
    } finally {
      permits.release(maxReaders);
    }
  }

  private static void closeQuietly(ReaderConnection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // Closing a read-only connection loses nothing.
    }
  }
}
