package dev.quartermaster.store.compaction;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.CorruptValueException;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the store's history bounded: every {@code period} it compacts everything older than the
 * newest {@code limits.revisions()} revisions, and further, oldest first, until the history left
 * (superseded and deleted values, which only watches need; never current values) fits in {@code
 * limits.bytes()}. Whichever bound asks for more compaction wins ({@link HistoryPlan}). Watchers
 * further behind than that get "compacted" (HTTP 410) and re-list, which every client of ours
 * handles; without this the log, and every range over it, grow forever.
 */
public final class HistoryCompactor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryCompactor.class);

  private final Store store;
  private final HistorySizes sizes;
  private final Env env;
  private final HistoryPlan.Limits limits;
  private final Duration period;
  private volatile boolean closed;
  private volatile Env.Cancellable next = () -> false;
  private volatile long keptBytes = -1;

  private HistoryCompactor(
      Store store, HistorySizes sizes, Env env, HistoryPlan.Limits limits, Duration period) {
    this.store = store;
    this.sizes = sizes;
    this.env = env;
    this.limits = limits;
    this.period = period;
  }

  /**
   * Starts compacting every {@code period}, keeping the newest {@code keep} revisions (no byte
   * bound).
   */
  public static HistoryCompactor start(Store store, Env env, long keep, Duration period) {
    return start(store, HistorySizes.UNKNOWN, env, HistoryPlan.Limits.revisionsOnly(keep), period);
  }

  /**
   * Starts compacting every {@code period} within {@code limits}, measuring history with {@code
   * sizes} (for a SQLite store, the store itself).
   */
  public static HistoryCompactor start(
      Store store, HistorySizes sizes, Env env, HistoryPlan.Limits limits, Duration period) {
    var compactor = new HistoryCompactor(store, sizes, env, limits, period);
    compactor.scheduleNext();
    return compactor;
  }

  /** Compacts once, now; returns the revision compacted to, or 0 when there was nothing to do. */
  public long compactNow() {
    long current = store.currentRevision();
    long compacted = store.compactedRevision();
    HistoryPlan plan =
        HistoryPlan.decide(
            current, compacted, limits, sizes.newestFirst(compacted, limits.bytes()));
    if (!plan.compactsBeyond(compacted)) {
      keptBytes = plan.keptBytes();
      return 0;
    }
    store.compact(plan.upTo());
    keptBytes = plan.keptBytes();
    log.info(
        "event=history_compacted upTo={} reason={} kept_bytes={} limit_revisions={} limit_bytes={}",
        plan.upTo(),
        plan.reason().label(),
        plan.keptBytes(),
        limits.revisions(),
        limits.bytes());
    return plan.upTo();
  }

  /**
   * The bytes of history kept after the last {@link #compactNow} (each period), or -1 before the
   * first; 0 when the store cannot measure its history.
   */
  public long keptBytes() {
    return keptBytes;
  }

  public HistoryPlan.Limits limits() {
    return limits;
  }

  private void scheduleNext() {
    if (!closed) {
      next = env.schedule(period, this::tick);
    }
  }

  private void tick() {
    try {
      compactNow();
    } catch (CorruptValueException e) {
      // Not transient: every period until the file is restored says so, naming the key.
      log.error(
          "event=compaction_refused_corrupt_value key='{}' revision={} cause='{}'",
          e.key(),
          e.revision(),
          e.getMessage());
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
