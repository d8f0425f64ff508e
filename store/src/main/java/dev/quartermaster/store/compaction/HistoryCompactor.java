package dev.quartermaster.store.compaction;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the store's history bounded: every {@code period} it compacts everything older than the
 * newest {@code keep} revisions. Watchers further behind than that get "compacted" (HTTP 410) and
 * re-list, which every client of ours handles; without this the log, and every range over it, grow
 * forever.
 */
public final class HistoryCompactor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryCompactor.class);

  private final Store store;
  private final Env env;
  private final long keep;
  private final Duration period;
  private volatile boolean closed;
  private volatile Env.Cancellable next = () -> false;

  private HistoryCompactor(Store store, Env env, long keep, Duration period) {
    if (keep < 1) {
      throw new IllegalArgumentException("history to keep must be at least 1 revision, got " + keep);
    }
    this.store = store;
    this.env = env;
    this.keep = keep;
    this.period = period;
  }

  /** Starts compacting every {@code period}, keeping the newest {@code keep} revisions. */
  public static HistoryCompactor start(Store store, Env env, long keep, Duration period) {
    var compactor = new HistoryCompactor(store, env, keep, period);
    compactor.scheduleNext();
    return compactor;
  }

  /** Compacts once, now; returns the revision compacted to, or 0 when there was nothing to do. */
  public long compactNow() {
    long target = store.currentRevision() - keep;
    if (target <= store.compactedRevision()) {
      return 0;
    }
    store.compact(target);
    log.info("event=compacted revision={} kept={}", target, keep);
    return target;
  }

  private void scheduleNext() {
    if (!closed) {
      next = env.schedule(period, this::tick);
    }
  }

  private void tick() {
    try {
      compactNow();
    } catch (StoreException e) {
      log.warn("event=compaction_failed cause='{}'", e.getMessage());
    }
    scheduleNext();
  }

  @Override
  public void close() {
    closed = true;
    next.cancel();
  }
}
