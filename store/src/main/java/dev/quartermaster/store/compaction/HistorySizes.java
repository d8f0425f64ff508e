package dev.quartermaster.store.compaction;

import java.util.List;

/**
 * How much history a store holds, for {@link HistoryCompactor}'s byte bound. History is what only
 * watches need: values that a newer change superseded or deleted, and tombstones; never a key's
 * current value. Each such row is freed by compacting to the revision of the change that made it
 * history, so the sizes are grouped by that revision.
 */
public interface HistorySizes {

  /** The bytes of history that compacting to {@code revision} (and no lower) would free. */
  record Freed(long revision, long bytes) {
    public Freed {
      if (revision < 1 || bytes < 0) {
        throw new IllegalArgumentException(
            "revision must be >= 1 and bytes >= 0, got " + revision + ", " + bytes);
      }
    }
  }

  /**
   * The history above revision {@code after} (the compacted revision), grouped by the revision that
   * frees it, newest first, one entry per revision that frees something. May stop after the first
   * entry at which the running total, from the newest, exceeds {@code enough}: nothing older can
   * change what the compactor decides.
   */
  List<Freed> newestFirst(long after, long enough);

  /** For stores that cannot tell: no history, so only the revision bound applies. */
  HistorySizes UNKNOWN = (after, enough) -> List.of();
}
