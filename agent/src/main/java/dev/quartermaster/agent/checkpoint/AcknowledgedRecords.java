package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import java.util.Optional;

/**
 * Holds the journal found on disk to its {@link JournalMark}: every record the mark says was
 * acknowledged as durable must still be there, whole. Only bytes beyond the mark may be a torn
 * write; a journal that ends short of it lost acknowledged records (a truncation, a restore of an
 * older copy, a damaged last record), and the agent must not start from it, because it would act
 * on a past state: release devices whose containers still run, delete CDI specs still in use.
 */
final class AcknowledgedRecords {
  private AcknowledgedRecords() {}

  static void check(Optional<JournalFile> journal, Optional<JournalMark> found, Checkpoint snapshot,
      LedgerRecovery.JournalStatus status) throws CorruptCheckpointException {
    if (journal.isEmpty() || found.isEmpty()) {
      return; // no mark: a journal from before marks, or one never committed to
    }
    var mark = found.get();
    var j = journal.get();
    long generation = snapshot.journalGeneration();
    if (mark.generation() < generation) {
      return; // the mark predates the snapshot, which holds everything that mark vouched for
    }
    if (mark.generation() > generation) {
      throw lost(j, mark, 0, "the snapshot names journal generation " + generation + ", but journal generation "
          + mark.generation() + " was already acknowledged: the snapshot is older than the ledger's acknowledged state");
    }
    switch (status) {
      case LedgerRecovery.JournalStatus.Absent _ -> {
        if (mark.frames() > 0) {
          throw lost(j, mark, 0, "the journal file is missing");
        }
      }
      case LedgerRecovery.JournalStatus.Stale stale -> {
        if (mark.frames() > 0) {
          throw lost(j, mark, 0, "the journal found is generation " + stale.generation() + ", an older file");
        }
      }
      case LedgerRecovery.JournalStatus.Replayed replayed -> {
        var scan = replayed.scan();
        if (scan.validEnd() < mark.length() || scan.frames().size() < mark.frames()) {
          String how = scan.size() < mark.length()
              ? "the file is " + scan.size() + " bytes (truncated)"
              : "its valid records end at byte offset " + scan.validEnd() + " (the record there is cut short or fails"
                  + " its CRC32C check)";
          throw lost(j, mark, scan.frames().size(), how + " and holds " + scan.frames().size() + " whole records");
        }
      }
    }
  }

  private static CorruptCheckpointException lost(JournalFile j, JournalMark mark, int whole, String found) {
    return new CorruptCheckpointException(j.location(), Problem.ACKNOWLEDGED_LOST, "records acknowledged as durable"
        + " are missing: its mark " + j.markLocation() + " says journal generation " + mark.generation() + " held "
        + mark.frames() + " records (" + mark.length() + " bytes) when they were acknowledged, but " + found
        + ": records " + (whole + 1) + " to " + mark.frames() + " of that journal were lost after they were"
        + " acknowledged (a crash can only tear a record after them, which was never acknowledged)");
  }
}
