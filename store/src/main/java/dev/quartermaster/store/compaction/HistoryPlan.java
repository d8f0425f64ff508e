package dev.quartermaster.store.compaction;

import java.util.List;

/**
 * The compactor's decision, without I/O: compact up to which revision, and which bound asked for
 * it. The revision bound keeps the newest {@code revisions} revisions; the byte bound keeps the
 * newest history whose bytes fit in {@code bytes}. Whichever asks for more compaction wins.
 *
 * @param upTo the revision to compact to; at or below the compacted revision means nothing to do
 * @param reason the bound that set {@code upTo}; {@link Reason#REVISIONS} when both agree
 * @param keptBytes the bytes of history left above {@code upTo} (or above the compacted revision,
 *     when there is nothing to do)
 */
public record HistoryPlan(long upTo, Reason reason, long keptBytes) {

  public enum Reason {
    REVISIONS,
    BYTES;

    /** As the log writes it. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The bounds on retained history; both at least 1. */
  public record Limits(long revisions, long bytes) {
    /** 10,000 revisions: minutes of resumable watch history at a busy cluster's write rate. */
    public static final long DEFAULT_REVISIONS = 10_000;

    /** 256 MiB: see README (configuration); above what 10,000 revisions of small objects take. */
    public static final long DEFAULT_BYTES = 256L << 20;

    public Limits {
      if (revisions < 1) {
        throw new IllegalArgumentException(
            "history to keep must be at least 1 revision, got " + revisions);
      }
      if (bytes < 1) {
        throw new IllegalArgumentException("history to keep must be at least 1 byte, got " + bytes);
      }
    }

    public static Limits defaults() {
      return new Limits(DEFAULT_REVISIONS, DEFAULT_BYTES);
    }

    /** The revision bound alone, as before the byte bound existed. */
    public static Limits revisionsOnly(long revisions) {
      return new Limits(revisions, Long.MAX_VALUE);
    }
  }

  /**
   * Decides for a store at revision {@code current}, compacted to {@code compacted}, given its
   * history newest first as {@link HistorySizes#newestFirst} reports it.
   */
  public static HistoryPlan decide(
      long current, long compacted, Limits limits, List<HistorySizes.Freed> newestFirst) {
    long byRevisions = current - limits.revisions();
    long byBytes = 0;
    long running = 0;
    for (HistorySizes.Freed freed : newestFirst) {
      running += freed.bytes();
      if (running > limits.bytes()) {
        byBytes = freed.revision(); // compacting to here frees it and everything older
        break;
      }
    }
    long upTo = Math.max(byRevisions, byBytes);
    Reason reason = byBytes > byRevisions ? Reason.BYTES : Reason.REVISIONS;
    long keptAbove = Math.max(upTo, compacted);
    long kept = 0;
    for (HistorySizes.Freed freed : newestFirst) {
      if (freed.revision() > keptAbove) {
        kept += freed.bytes();
      }
    }
    return new HistoryPlan(upTo, reason, kept);
  }

  /** Whether this plan compacts anything in a store compacted to {@code compacted}. */
  public boolean compactsBeyond(long compacted) {
    return upTo > compacted;
  }
}
