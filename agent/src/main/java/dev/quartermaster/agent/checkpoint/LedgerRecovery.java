package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import dev.quartermaster.agent.ledger.LedgerState;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the ledger as it is on disk, changing nothing: the snapshot (verified by {@link
 * CheckpointCodec}) and then the journal that continues it (verified by {@link LedgerJournal}).
 * {@link DurableLedger#open} acts on what this finds; {@code qm agent ledger show} only prints it.
 *
 * <p>Which journal counts: the snapshot names the generation of its journal. A compaction writes
 * the snapshot (naming generation g+1) first and only then replaces the journal with an empty one
 * of generation g+1, so a journal of an older generation is one whose every change the snapshot
 * already holds (a compaction was cut short between its two steps): it is ignored. A journal of a
 * newer generation cannot come from us and is an error, as is a journal without a snapshot.
 *
 * <p>The journal is read before the snapshot, so a reader that does not hold the state-directory
 * lock and races a compaction sees either an older journal (ignored) or the current pair, never a
 * journal newer than its snapshot.
 */
public final class LedgerRecovery {
  private LedgerRecovery() {}

  /** What the journal contributed. */
  public sealed interface JournalStatus {
    /** No journal (never created, or a file without journal support). */
    record Absent() implements JournalStatus {}

    /** A journal of an older generation, entirely covered by the snapshot. */
    record Stale(long generation) implements JournalStatus {}

    /** Replayed: {@code scan} says what it held and whether its tail was torn. */
    record Replayed(LedgerJournal.Scan scan) implements JournalStatus {}
  }

  /**
   * The ledger on disk: the snapshot, the state after replaying its journal, what the journal was,
   * and the mark file's acknowledged count (empty for a journal from before marks, or a mark file
   * lost or unreadable; the journal's header keeps a second count, {@link #newestMark}).
   */
  public record Recovered(
      Checkpoint snapshot, LedgerState state, JournalStatus journal, Optional<JournalMark> mark) {
    public Recovered {
      Objects.requireNonNull(snapshot, "snapshot");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(journal, "journal");
      Objects.requireNonNull(mark, "mark");
    }

    public String bootId() {
      return snapshot.bootId();
    }

    /** The journal header's acknowledged count, if the journal was replayed and holds one. */
    public Optional<JournalMark> headerMark() {
      return journal instanceof JournalStatus.Replayed replayed
          ? replayed.scan().header().acknowledged()
          : Optional.empty();
    }

    /** The newest acknowledged count found in either place: where the next mark continues. */
    public Optional<JournalMark> newestMark() {
      var header = headerMark();
      return header.isPresent() ? JournalMark.newer(mark, header.get()) : mark;
    }
  }

  /**
   * The ledger of {@code file}; empty if there is none yet. Corruption is a {@link
   * CorruptCheckpointException}.
   */
  public static Optional<Recovered> read(LedgerFile file) throws IOException {
    var journal = file.journal();
    // The mark first: it only ever trails the journal, so a reader racing a commit sees a mark no
    // further than the journal it reads next.
    Optional<JournalMark> mark =
        journal.isPresent()
            ? journal.get().readMark().flatMap(JournalMark::decode)
            : Optional.empty();
    Optional<byte[]> journalBytes = journal.isPresent() ? journal.get().read() : Optional.empty();
    var snapshotBytes = file.read();
    if (snapshotBytes.isEmpty()) {
      if (mark.isPresent()) {
        throw new CorruptCheckpointException(
            file.location(),
            Problem.ACKNOWLEDGED_LOST,
            "the snapshot is missing"
                + (journalBytes.isPresent() ? "" : " and so is its journal")
                + ", but the journal's mark "
                + journal.get().markLocation()
                + " shows a ledger was committed here (journal generation "
                + mark.get().generation()
                + ", "
                + mark.get().frames()
                + " records acknowledged)");
      }
      if (journalBytes.isPresent()) {
        throw new CorruptCheckpointException(
            journal.get().location(),
            Problem.INVALID_CONTENT,
            "a ledger journal exists but its snapshot "
                + file.location()
                + " does not; the journal alone does not"
                + " hold the whole ledger");
      }
      return Optional.empty();
    }
    var snapshot = CheckpointCodec.decode(snapshotBytes.get(), file.location());
    if (journalBytes.isEmpty()) {
      var status = new JournalStatus.Absent();
      AcknowledgedRecords.check(journal, mark, snapshot, status);
      return Optional.of(new Recovered(snapshot, snapshot.state(), status, mark));
    }
    var location = journal.get().location();
    var scan = LedgerJournal.scan(journalBytes.get(), location);
    long generation = scan.header().generation();
    if (generation < snapshot.journalGeneration()) {
      var status = new JournalStatus.Stale(generation);
      AcknowledgedRecords.check(journal, mark, snapshot, status);
      return Optional.of(new Recovered(snapshot, snapshot.state(), status, mark));
    }
    if (generation > snapshot.journalGeneration()) {
      throw new CorruptCheckpointException(
          location,
          Problem.INVALID_CONTENT,
          "journal generation "
              + generation
              + " is newer than the generation "
              + snapshot.journalGeneration()
              + " named by the snapshot "
              + file.location()
              + "; the snapshot is always written first, so one of the two was replaced from elsewhere");
    }
    if (!scan.header().bootId().equals(snapshot.bootId())) {
      throw new CorruptCheckpointException(
          location,
          Problem.INVALID_CONTENT,
          "the journal was written during boot "
              + scan.header().bootId()
              + " but its snapshot "
              + file.location()
              + " during boot "
              + snapshot.bootId());
    }
    var status = new JournalStatus.Replayed(scan);
    // Before replay: a journal cut short of its mark must be named as lost records, not as whatever
    // replay would trip over first.
    AcknowledgedRecords.check(journal, mark, snapshot, status);
    var state = LedgerJournal.replay(snapshot.state(), scan, location);
    return Optional.of(new Recovered(snapshot, state, status, mark));
  }
}
