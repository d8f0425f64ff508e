package dev.quartermaster.store.sqlite;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.store.CompactedException;
import dev.quartermaster.store.CorruptValueException;
import dev.quartermaster.store.FutureRevisionException;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that writes. Callers queue requests; the thread takes every transaction queued so
 * far and commits them together (group commit: one fsync for many callers). Inside that one SQLite
 * transaction the requests are applied one after another, each seeing the writes of those before
 * it, and each that writes gets the next revision: compares are exact, and revision order is commit
 * order. Results are handed back, and events published, only after COMMIT returned.
 *
 * <p>A batch of nothing but transactions that may wait ({@link Txn.Urgency#MAY_WAIT}: heartbeats)
 * waits up to {@code mayWait} for company before it commits; any other request ends the wait at
 * once and takes the waiting ones along. At 1,000 beats a second each beat had been a commit of its
 * own, since they come one at a time.
 */
@OutsideEnv("the store's single writer thread owns the database connection")
final class Writer {
  private static final Logger LOG = LoggerFactory.getLogger(Writer.class);
  static final int MAX_BATCH = 512;

  /** Compaction proceeds this many revisions per SQLite transaction, letting writes in between. */
  private static final long COMPACT_STEP = 1_000;

  private sealed interface Request {}

  private record TxnRequest(Txn txn, CompletableFuture<TxnResult> done) implements Request {}

  private record CompactRequest(long revision, CompletableFuture<Void> done) implements Request {}

  private record Stop() implements Request {}

  private final Path file;
  private final long mayWaitNanos;
  private final Connection conn;
  private final WatchHub hub;
  private final TxnApplier applier;

  /** Prepared once: each batch's BEGIN and COMMIT were a parse and a statement's life each. */
  private final PreparedStatement begin;

  private final PreparedStatement commit;
  private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
  private final Object submitLock = new Object();
  private boolean stopping; // guarded by submitLock
  private final Thread thread;

  /** Requests taken off the queue and not yet answered; only the writer thread touches it. */
  private final ArrayDeque<Request> pending = new ArrayDeque<>();

  private volatile long revision;
  private volatile long compacted;

  /** SQLite transactions committed for callers' writes (a batch is one). */
  private final AtomicLong commits = new AtomicLong();

  Writer(Path file, Connection conn, WatchHub hub, Schema.Meta meta, Duration mayWait)
      throws SQLException {
    this.file = file;
    this.mayWaitNanos = mayWait.toNanos();
    this.conn = conn;
    this.hub = hub;
    this.applier = new TxnApplier(conn, file);
    this.begin = conn.prepareStatement("BEGIN IMMEDIATE");
    this.commit = conn.prepareStatement("COMMIT");
    this.revision = meta.revision();
    this.compacted = meta.compacted();
    this.thread =
        Thread.ofPlatform()
            .daemon()
            .name("qm-store-writer " + file.getFileName())
            .start(this::runGuarded);
  }

  long revision() {
    return revision;
  }

  long compacted() {
    return compacted;
  }

  long commits() {
    return commits.get();
  }

  /** How many transactions the writer holds while it waits for company: what a test waits on. */
  int waitingForCompany() {
    return waitingTaken;
  }

  private volatile int waitingTaken;

  TxnResult txn(Txn txn) {
    CompletableFuture<TxnResult> done = new CompletableFuture<>();
    submit(new TxnRequest(txn, done));
    return await(done);
  }

  void compact(long revision) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    submit(new CompactRequest(revision, done));
    await(done);
  }

  /** Lets queued requests finish, then stops the thread; requests after this are refused. */
  void stop() {
    synchronized (submitLock) {
      if (stopping) {
        return;
      }
      stopping = true;
      queue.add(new Stop());
    }
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true; // finish closing first: the writer must be gone before its connection
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void submit(Request request) {
    synchronized (submitLock) {
      if (stopping) {
        throw Errors.closed(file);
      }
      queue.add(request);
    }
  }

  private static <T> T await(CompletableFuture<T> done) {
    try {
      return done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /**
   * If the loop dies of something unexpected (an Error), nothing would ever answer the callers:
   * refuse new requests and fail every queued one instead of leaving them waiting forever.
   */
  private void runGuarded() {
    try {
      run();
    } catch (Throwable t) {
      LOG.error("store {}: the writer thread failed; the store accepts no more writes", file, t);
      synchronized (submitLock) {
        stopping = true;
      }
      StoreException failure = new StoreException("store " + file + ": the writer failed: " + t, t);
      queue.drainTo(pending);
      for (Request r : pending) {
        switch (r) {
          case TxnRequest txn -> txn.done().completeExceptionally(failure);
          case CompactRequest c -> c.done().completeExceptionally(failure);
          case Stop s -> {}
        }
      }
      throw t;
    }
  }

  private void run() {
    while (true) {
      if (pending.isEmpty()) {
        pending.add(takeNext());
      }
      queue.drainTo(pending);
      waitForCompany();
      switch (pending.pollFirst()) {
        case TxnRequest first -> {
          List<TxnRequest> batch = new ArrayList<>(List.of(first));
          while (batch.size() < MAX_BATCH && pending.peekFirst() instanceof TxnRequest next) {
            batch.add(next);
            pending.pollFirst();
          }
          commitBatch(batch);
        }
        case CompactRequest c -> {
          if (compactStep(c)) {
            pending.addLast(c); // more to do; writes queued meanwhile go first
          }
        }
        case Stop s -> {
          // Only unfinished compactions can still be here: nothing is queued after Stop.
          for (Request r : pending) {
            if (r instanceof CompactRequest c) {
              c.done().completeExceptionally(Errors.closed(file));
            }
          }
          return;
        }
        case null -> {}
      }
    }
  }

  /**
   * While every request taken may wait, waits (up to {@code mayWait} from now) for one that may
   * not, or for a full batch.
   */
  private void waitForCompany() {
    long deadline = System.nanoTime() + mayWaitNanos;
    while (pending.size() < MAX_BATCH && pending.stream().allMatch(Writer::mayWait)) {
      waitingTaken = pending.size();
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      Request next;
      try {
        next = queue.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        break; // nobody should interrupt the writer: commit what it has
      }
      if (next == null) {
        break;
      }
      pending.add(next);
      queue.drainTo(pending);
    }
    waitingTaken = 0;
  }

  private static boolean mayWait(Request r) {
    return r instanceof TxnRequest t && t.txn().urgency() == Txn.Urgency.MAY_WAIT;
  }

  private Request takeNext() {
    while (true) {
      try {
        return queue.take();
      } catch (InterruptedException e) {
        // Nobody should interrupt the writer; it stops only by a Stop request.
      }
    }
  }

  private void commitBatch(List<TxnRequest> batch) {
    long before = revision;
    long rev = before;
    // Per request, its result, or (then its result is null) the corrupt row that refused it.
    TxnResult[] results = new TxnResult[batch.size()];
    CorruptValueException[] refused = new CorruptValueException[batch.size()];
    List<StoreEvent> events = new ArrayList<>();
    try {
      begin.execute();
      for (int i = 0; i < batch.size(); i++) {
        TxnApplier.Applied applied;
        try {
          applied = applier.apply(batch.get(i).txn(), rev);
        } catch (CorruptValueException e) {
          // Found before this transaction wrote anything (TxnApplier#apply): refuse it alone, so
          // one damaged key does not fail every write that happens to share its batch.
          LOG.error("store {}: refused a transaction: {}", file, e.getMessage());
          refused[i] = e;
          continue;
        }
        rev = applied.result().revision();
        results[i] = applied.result();
        events.addAll(applied.events());
      }
      // The revision is not written: the log's newest row says it (Schema).
      commit.execute();
      commits.incrementAndGet();
    } catch (SQLException | RuntimeException e) {
      failBatch(batch, before, e);
      return;
    } catch (Error e) {
      failBatch(batch, before, e); // these callers are no longer in `pending`: answer them first
      throw e;
    }
    hub.publish(events, rev);
    revision = rev;
    for (int i = 0; i < batch.size(); i++) {
      if (refused[i] != null) {
        batch.get(i).done().completeExceptionally(refused[i]);
      } else {
        batch.get(i).done().complete(results[i]);
      }
    }
  }

  private void failBatch(List<TxnRequest> batch, long before, Throwable e) {
    rollbackQuietly();
    StoreException failure =
        e instanceof SQLException sql
            ? Errors.wrap(file, "commit", sql)
            : new StoreException("store " + file + ": commit failed: " + e, e);
    LOG.error("store {}: a commit of {} transactions failed", file, batch.size(), e);
    batch.forEach(r -> r.done().completeExceptionally(failure));
    resync(before);
  }

  /**
   * After a failed commit, reads back the committed revision. If it moved, the commit landed
   * although SQLite reported an error: its events were never published, so every watch is ended and
   * its client re-watches, replaying them from the log.
   */
  private void resync(long before) {
    try {
      execute("BEGIN");
      Schema.Meta meta = Schema.readMeta(conn, file);
      execute("COMMIT");
      if (meta.revision() != before) {
        revision = meta.revision();
        hub.endAll(
            "store " + file + ": a write's outcome was uncertain; watch again",
            false,
            meta.revision());
      }
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      LOG.error("store {}: cannot read back the revision after a failed commit", file, e);
    }
  }

  /**
   * Runs one step of a compaction; returns whether more steps are needed. Each step is itself a
   * complete compaction to an intermediate revision, so a crash between steps leaves a valid store.
   */
  private boolean compactStep(CompactRequest request) {
    long target = request.revision();
    long current = revision;
    long from = compacted;
    if (target > current) {
      request.done().completeExceptionally(new FutureRevisionException(target, current));
      return false;
    }
    if (target < from) {
      request.done().completeExceptionally(new CompactedException(target, from));
      return false;
    }
    if (target == from) {
      request.done().complete(null);
      return false;
    }
    long to = Math.min(target, from + COMPACT_STEP);
    try {
      execute("BEGIN IMMEDIATE");
      applier.compact(from, to);
      execute("COMMIT");
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      // A corrupt row is passed on as it is: its message names the key, and its type says no retry
      // helps.
      request
          .done()
          .completeExceptionally(
              switch (e) {
                case SQLException sql -> Errors.wrap(file, "compact to " + target, sql);
                case CorruptValueException corrupt -> corrupt;
                default -> new StoreException("store " + file + ": compact failed: " + e, e);
              });
      return false;
    }
    compacted = to;
    if (to < target) {
      return true;
    }
    reclaim();
    request.done().complete(null);
    return false;
  }

  /**
   * Gives the pages compaction freed back to the file system (stores created with incremental
   * auto-vacuum; a no-op on older ones, which keep their size until a manual VACUUM). Best effort:
   * the compaction itself is committed either way.
   */
  private void reclaim() {
    // executeUpdate steps the pragma to the end; a plain execute frees a single page.
    try (Statement s = conn.createStatement()) {
      s.executeUpdate("PRAGMA incremental_vacuum");
    } catch (SQLException e) {
      org.slf4j.LoggerFactory.getLogger(Writer.class)
          .warn("store {}: reclaiming free pages failed: {}", file, e.getMessage());
    }
  }

  private void execute(String sql) throws SQLException {
    try (Statement s = conn.createStatement()) {
      s.execute(sql);
    }
  }

  private void rollbackQuietly() {
    try {
      execute("ROLLBACK");
    } catch (SQLException e) {
      // Also thrown when SQLite had already rolled back by itself; nothing is left open then.
      LOG.debug("store {}: rollback: {}", file, e.getMessage());
    }
  }
}
