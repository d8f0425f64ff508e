package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import java.util.Optional;

/**
 * Holds the journal found on disk to every acknowledged count found ({@link JournalMark}): the mark
 * file's and the one in the journal's own header. Every record a count says was acknowledged as
 * durable must still be there, whole; only bytes beyond the larger count may be a torn write. A
 * journal that ends short of either lost acknowledged records (a truncation, a restore of an older
 * copy, a damaged last record), and the agent must not start from it, because it would act on a
 * past state: release devices whose containers still run, delete CDI specs still in use.
 *
 * <p>Two counts, so that deleting one file cannot turn a loss into a torn tail: with the mark file
 * gone, the header's count still shows a journal cut short at its tail; with the journal gone or
 * replaced, the mark file shows it.
 */
final class AcknowledgedRecords {
  private AcknowledgedRecords() {}

  static void check(
      Optional<JournalFile> journal,
      Optional<JournalMark> markFile,
      Checkpoint snapshot,
      LedgerRecovery.JournalStatus status)
      throws CorruptCheckpointException {
    if (journal.isEmpty()) {
      return;
    }
    var j = journal.get();
    long generation = snapshot.journalGeneration();
    if (markFile.isPresent()) {
      var mark = markFile.get();
      if (mark.generation() > generation) {
        throw new CorruptCheckpointException(
            j.location(),
            Problem.ACKNOWLEDGED_LOST,
            "records acknowledged as durable"
                + " are missing: its mark "
                + j.markLocation()
                + " says journal generation "
                + mark.generation()
                + " held "
                + mark.frames()
                + " records when they were acknowledged, but the snapshot names journal generation "
                + generation
                + ": the snapshot is older than the ledger's acknowledged state");
      }
      // An older mark predates the snapshot, which holds everything that mark vouched for.
      if (mark.generation() == generation) {
        holdTo(j, mark, "its mark " + j.markLocation(), snapshot, status);
      }
    }
    if (status instanceof LedgerRecovery.JournalStatus.Replayed replayed) {
      var header = replayed.scan().header().acknowledged();
      if (header.isPresent()) {
        String markState =
            markFile.isPresent()
                ? ""
                : " (its mark file "
                    + j.markLocation()
                    + " is missing or unreadable too, so nothing else vouches for them)";
        holdTo(
            j,
            header.get(),
            "the acknowledged count in its own header" + markState,
            snapshot,
            status);
      }
    }
  }

  /**
   * Throws if the journal holds less than {@code mark} (of the snapshot's generation) vouches for.
   */
  private static void holdTo(
      JournalFile j,
      JournalMark mark,
      String source,
      Checkpoint snapshot,
      LedgerRecovery.JournalStatus status)
      throws CorruptCheckpointException {
    long before = snapshot.state().version();
    switch (status) {
      case LedgerRecovery.JournalStatus.Absent _ -> {
        if (mark.frames() > 0) {
          throw lost(j, mark, source, 0, before, "the journal file is missing");
        }
      }
      case LedgerRecovery.JournalStatus.Stale stale -> {
        if (mark.frames() > 0) {
          throw lost(
              j,
              mark,
              source,
              0,
              before,
              "the journal found is generation " + stale.generation() + ", an older file");
        }
      }
      case LedgerRecovery.JournalStatus.Replayed replayed -> {
        var scan = replayed.scan();
        long last = scan.lastVersion().orElse(before);
        if (scan.validEnd() < mark.length()
            || scan.frames().size() < mark.frames()
            || (mark.version().isPresent() && last < mark.version().getAsLong())) {
          String how =
              scan.size() < mark.length()
                  ? "the file is " + scan.size() + " bytes (truncated)"
                  : scan.validEnd() < scan.size()
                      ? "its valid records end at byte offset "
                          + scan.validEnd()
                          + " (the record there is cut short or"
                          + " fails its CRC32C check)"
                      : "it ends after ledger version " + last;
          throw lost(
              j,
              mark,
              source,
              scan.frames().size(),
              last,
              how + " and holds " + scan.frames().size() + " whole records");
        }
      }
    }
  }

  private static CorruptCheckpointException lost(
      JournalFile j, JournalMark mark, String source, int whole, long lastPresent, String found) {
    String records =
        whole < mark.frames() ? "records " + (whole + 1) + " to " + mark.frames() : "records";
    String changes =
        mark.version().isPresent() && mark.version().getAsLong() > lastPresent
            ? " ("
                + count(mark.version().getAsLong() - lastPresent)
                + ", ledger versions "
                + (lastPresent + 1)
                + " to "
                + mark.version().getAsLong()
                + ")"
            : "";
    String through =
        mark.version().isPresent() ? ", through ledger version " + mark.version().getAsLong() : "";
    return new CorruptCheckpointException(
        j.location(),
        Problem.ACKNOWLEDGED_LOST,
        "records acknowledged as durable"
            + " are missing: "
            + source
            + " says journal generation "
            + mark.generation()
            + " held "
            + mark.frames()
            + " records ("
            + mark.length()
            + " bytes"
            + through
            + ") when they were acknowledged, but "
            + found
            + ": "
            + records
            + " of that journal were lost after they were acknowledged"
            + changes
            + "; a crash can only tear a"
            + " record after them, which was never acknowledged. Restore the journal (with its snapshot) from a copy that"
            + " holds them, or reset the ledger and re-prepare the claims it held");
  }

  private static String count(long changes) {
    return changes + (changes == 1 ? " acknowledged change" : " acknowledged changes");
  }
}
