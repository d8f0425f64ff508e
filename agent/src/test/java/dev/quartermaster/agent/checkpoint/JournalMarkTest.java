package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's mark: acknowledged records that go missing (truncation anywhere, a damaged last
 * record) are a loud, named error; only an append that was never acknowledged may be cut as torn.
 */
class JournalMarkTest {
  private static final Duration TTL = ClaimLedger.DEFAULT_TOMBSTONE_TTL;
  private static final int RECORDS = 10;

  private final DeterministicEnv env = new DeterministicEnv(3);
  @TempDir Path dir;
  private Path snapshot;
  private Path journal;

  /** A ledger with {@link #RECORDS} acknowledged journal records, one claim per record. */
  @BeforeEach
  void commitRecords() throws Exception {
    snapshot = dir.resolve("ledger.json");
    journal = AtomicLedgerFile.journalPath(snapshot);
    var opened = DurableLedger.open(new AtomicLedgerFile(snapshot), "boot-1", env, TTL);
    for (int i = 0; i < RECORDS; i++) {
      opened
          .ledger()
          .ledger()
          .prepare(PrepareRequest.of(new ClaimRef("uid-" + i, "claim-" + i), List.of("gpu-" + i)));
      opened.ledger().persist();
    }
    assertThat(scan().frames()).hasSize(RECORDS);
  }

  private LedgerJournal.Scan scan() throws Exception {
    return LedgerJournal.scan(Files.readAllBytes(journal), journal.toString());
  }

  private void truncateTo(long size) throws Exception {
    try (var raf = new RandomAccessFile(journal.toFile(), "rw")) {
      raf.setLength(size);
    }
  }

  private DurableLedger.Opened reopen() throws Exception {
    return DurableLedger.open(new AtomicLedgerFile(snapshot), "boot-1", env, TTL);
  }

  private void assertLost(String records) {
    assertThatThrownBy(this::reopen)
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.ACKNOWLEDGED_LOST))
        .hasMessageContaining(journal.toString())
        .hasMessageContaining(journal + ".mark")
        .hasMessageContaining(records)
        .hasMessageContaining("acknowledged");
  }

  @Test
  void aJournalTruncatedInHalfIsLostRecordsNotATornWrite() throws Exception {
    byte[] before = Files.readAllBytes(journal);
    truncateTo(before.length / 2);

    assertLost("to " + RECORDS + " of that journal were lost");
    assertThat(Files.size(journal))
        .as("nothing is cut off a journal that failed its check")
        .isEqualTo(before.length / 2);
  }

  @Test
  void aJournalTruncatedAtARecordBoundaryIsNamed() throws Exception {
    truncateTo(scan().frames().getLast().offset());

    assertLost("records " + RECORDS + " to " + RECORDS);
  }

  @Test
  void aFlippedLastRecordIsNamedAsLostNotTorn() throws Exception {
    long at = scan().frames().getLast().offset() + 12;
    try (var raf = new RandomAccessFile(journal.toFile(), "rw")) {
      raf.seek(at);
      int b = raf.read();
      raf.seek(at);
      raf.write(b ^ 0x40);
    }

    assertLost("records " + RECORDS + " to " + RECORDS);
  }

  @Test
  void aDeletedJournalIsNamed() throws Exception {
    Files.delete(journal);

    assertLost("the journal file is missing");
  }

  @Test
  void aDeletedSnapshotAndJournalAreNamedThroughTheMark() throws Exception {
    Files.delete(journal);
    Files.delete(snapshot);

    assertThatThrownBy(this::reopen)
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.ACKNOWLEDGED_LOST))
        .hasMessageContaining(snapshot.toString())
        .hasMessageContaining(RECORDS + " records acknowledged");
  }

  @Test
  void aGenuinelyTornLastAppendIsCutAndEveryAcknowledgedRecordKept() throws Exception {
    long acknowledged = Files.size(journal);
    // An append the crash interrupted before its fsync (and so before its mark): half a frame.
    byte[] frame = LedgerJournal.frame(List.of());
    Files.write(
        journal, Arrays.copyOf(frame, frame.length / 2), java.nio.file.StandardOpenOption.APPEND);

    var opened = reopen();

    assertThat(opened.ledger().ledger().snapshot().claims()).hasSize(RECORDS);
    assertThat(Files.size(journal))
        .as("the torn tail is cut, nothing acknowledged")
        .isEqualTo(acknowledged);
    opened
        .ledger()
        .ledger()
        .prepare(PrepareRequest.of(new ClaimRef("uid-x", "claim-x"), List.of("gpu-x")));
    opened.ledger().persist();
    assertThat(reopen().ledger().ledger().snapshot().claims()).hasSize(RECORDS + 1);
  }

  // Issue 30 item 8: the acknowledged count lives in two places, so no single deleted or damaged
  // file turns a loss into a silent "torn tail".

  private Path mark() {
    return Path.of(journal + ".mark");
  }

  @Test
  void aDeletedMarkDoesNotHideAJournalCutByThreeHundredBytes() throws Exception {
    var scan = scan();
    long size = Files.size(journal);
    long cut = size - 300;
    // The records the cut removes or tears: one change (one prepare) each.
    long missing =
        scan.frames().stream().filter(f -> f.offset() >= cut || nextOffset(scan, f) > cut).count();
    assertThat(missing).as("the cut removes whole acknowledged records").isGreaterThanOrEqualTo(2);
    Files.delete(mark());
    truncateTo(cut);

    assertThatThrownBy(this::reopen)
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> {
              assertThat(e.problem()).isEqualTo(Problem.ACKNOWLEDGED_LOST);
              assertThat(e.location()).isEqualTo(journal.toString());
            })
        .hasMessageContaining(journal.toString())
        .hasMessageContaining(missing + " acknowledged changes")
        .hasMessageContaining("records " + (RECORDS - missing + 1) + " to " + RECORDS)
        .hasMessageContaining(mark() + " is missing or unreadable too")
        .hasMessageContaining("Restore the journal");
    assertThat(Files.size(journal))
        .as("nothing is cut off a journal that failed its check")
        .isEqualTo(cut);
  }

  private static long nextOffset(LedgerJournal.Scan scan, LedgerJournal.Frame frame) {
    int i = scan.frames().indexOf(frame);
    return i + 1 < scan.frames().size() ? scan.frames().get(i + 1).offset() : scan.validEnd();
  }

  @Test
  void aDeletedMarkAloneIsRecoveredExactlyAndWrittenBack() throws Exception {
    var before = reopen().ledger().ledger().snapshot();
    Files.delete(mark());

    var opened = reopen();

    assertThat(opened.ledger().ledger().snapshot()).isEqualTo(before);
    var rewritten = JournalMark.decode(Files.readAllBytes(mark())).orElseThrow();
    assertThat(rewritten.frames()).isEqualTo(RECORDS);
    assertThat(rewritten.version()).hasValue(before.version());
    // Both copies again: now a cut journal is caught even through the mark alone.
    truncateTo(scan().frames().getLast().offset());
    assertLost("records " + RECORDS + " to " + RECORDS);
  }

  @Test
  void aDamagedMarkDoesNotHideAJournalCutAtARecordBoundary() throws Exception {
    var bytes = Files.readAllBytes(mark());
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] ^= 0x5a;
    }
    Files.write(mark(), bytes);
    truncateTo(scan().frames().getLast().offset());

    assertThatThrownBy(this::reopen)
        .isInstanceOfSatisfying(
            CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.ACKNOWLEDGED_LOST))
        .hasMessageContaining(journal.toString())
        .hasMessageContaining("(1 acknowledged change,")
        .hasMessageContaining("records " + RECORDS + " to " + RECORDS);
  }

  @Test
  void aDamagedHeaderCountIsRecoveredFromTheMarkAndWrittenBack() throws Exception {
    var before = reopen().ledger().ledger().snapshot();
    var bytes = Files.readAllBytes(journal);
    for (int i = LedgerJournal.MARK_CELLS_AT; i < LedgerJournal.FIRST_FRAME; i++) {
      bytes[i] ^= 0x5a;
    }
    Files.write(journal, bytes);

    assertThat(reopen().ledger().ledger().snapshot()).isEqualTo(before);
    assertThat(scan().header().acknowledged())
        .get()
        .extracting(JournalMark::frames)
        .isEqualTo(RECORDS);
  }

  @Test
  void aTornAppendBeyondTheHeaderCountIsCutSilentlyEvenWithoutTheMark() throws Exception {
    // A crash mid-append: half a frame after the last acknowledged one, and (worse luck) no mark.
    long acknowledged = Files.size(journal);
    byte[] frame = LedgerJournal.frame(List.of());
    Files.write(
        journal, Arrays.copyOf(frame, frame.length / 2), java.nio.file.StandardOpenOption.APPEND);
    Files.delete(mark());

    var opened = reopen();

    assertThat(opened.ledger().ledger().snapshot().claims()).hasSize(RECORDS);
    assertThat(Files.size(journal)).isEqualTo(acknowledged);
  }

  /**
   * Each of the three files, deleted, cut by 300 bytes, or with a byte flipped: the ledger comes
   * back exactly as it was acknowledged, or the agent refuses to start naming the damaged file.
   */
  @Test
  void anySingleLostOrDamagedFileIsRecoveredExactlyOrNamed() throws Exception {
    var before = reopen().ledger().ledger().snapshot();
    var files = List.of(snapshot, journal, mark());
    var originals = new java.util.HashMap<Path, byte[]>();
    for (var f : files) {
      originals.put(f, Files.readAllBytes(f));
    }
    var outcomes = new java.util.ArrayList<String>();
    for (var damaged : files) {
      for (var damage :
          List.of(
              "deleted",
              "cut by 300 bytes",
              "a byte flipped in the middle",
              "its last byte flipped")) {
        for (var f : files) {
          Files.write(f, originals.get(f));
        }
        byte[] bytes = originals.get(damaged).clone();
        switch (damage) {
          case "deleted" -> Files.delete(damaged);
          case "cut by 300 bytes" ->
              Files.write(damaged, Arrays.copyOf(bytes, Math.max(0, bytes.length - 300)));
          case "a byte flipped in the middle" -> {
            bytes[bytes.length / 2] ^= 0x40;
            Files.write(damaged, bytes);
          }
          default -> {
            bytes[bytes.length - 1] ^= 0x40;
            Files.write(damaged, bytes);
          }
        }
        var what = damaged.getFileName() + " " + damage;
        try {
          assertThat(reopen().ledger().ledger().snapshot()).as(what).isEqualTo(before);
          outcomes.add(what + ": recovered");
        } catch (CorruptCheckpointException e) {
          assertThat(e.getMessage()).as(what).contains(damaged.toString());
          outcomes.add(what + ": " + e.problem());
        }
      }
    }
    // The mark alone is redundant (the journal's header holds the same count); the others are not.
    assertThat(outcomes)
        .containsExactly(
            "ledger.json deleted: ACKNOWLEDGED_LOST",
            "ledger.json cut by 300 bytes: MALFORMED",
            "ledger.json a byte flipped in the middle: MALFORMED",
            "ledger.json its last byte flipped: MALFORMED",
            "ledger.journal deleted: ACKNOWLEDGED_LOST",
            "ledger.journal cut by 300 bytes: ACKNOWLEDGED_LOST",
            "ledger.journal a byte flipped in the middle: CHECKSUM_MISMATCH",
            "ledger.journal its last byte flipped: ACKNOWLEDGED_LOST",
            "ledger.journal.mark deleted: recovered",
            "ledger.journal.mark cut by 300 bytes: recovered",
            "ledger.journal.mark a byte flipped in the middle: recovered",
            "ledger.journal.mark its last byte flipped: recovered");
  }

  @Test
  void formatOneFilesAreStillReadAndCompactedIntoFormatTwo() throws Exception {
    var before = reopen().ledger().ledger().snapshot();
    var scan = scan();
    var current = Files.readAllBytes(journal);
    var formatOneSnapshot = Files.readAllBytes(snapshot); // a snapshot's format did not change
    // The same records as a format-1 journal (no mark cells) with a format-1 mark beside it.
    var legacyHeader = legacyHeader(scan.header().generation(), scan.header().bootId());
    var frames = Arrays.copyOfRange(current, LedgerJournal.FIRST_FRAME, current.length);
    var legacy =
        java.nio.ByteBuffer.allocate(legacyHeader.length + frames.length)
            .put(legacyHeader)
            .put(frames)
            .array();
    Files.write(journal, legacy);
    Files.write(mark(), legacyMark(7, scan.header().generation(), legacy.length, RECORDS));

    var opened = reopen();

    assertThat(opened.ledger().ledger().snapshot()).isEqualTo(before);
    var upgraded = scan();
    assertThat(upgraded.header().format()).isEqualTo(LedgerJournal.VERSION);
    assertThat(upgraded.header().generation()).isGreaterThan(scan.header().generation());
    assertThat(JournalMark.decode(Files.readAllBytes(mark())).orElseThrow().version()).isPresent();

    // A format-1 journal cut short of its format-1 mark is still named as loss.
    Files.write(journal, Arrays.copyOf(legacy, legacy.length - 300));
    Files.write(mark(), legacyMark(7, scan.header().generation(), legacy.length, RECORDS));
    Files.write(snapshot, formatOneSnapshot);
    assertLost("to " + RECORDS + " of that journal were lost");
  }

  private static byte[] legacyHeader(long generation, String bootId) {
    var id = bootId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    var b = java.nio.ByteBuffer.allocate(8 + 4 + 8 + 2 + id.length + 4);
    b.put(LedgerJournal.MAGIC)
        .putInt(LedgerJournal.LEGACY_VERSION)
        .putLong(generation)
        .putShort((short) id.length)
        .put(id);
    var crc = new java.util.zip.CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return b.array();
  }

  private static byte[] legacyMark(long seq, long generation, long length, int frames) {
    var b = java.nio.ByteBuffer.allocate(64); // the other slot stays zeros: invalid
    b.position((int) ((seq & 1) * 32));
    b.putLong(seq).putLong(generation).putLong(length).putInt(frames);
    var crc = new java.util.zip.CRC32C();
    crc.update(b.array(), (int) ((seq & 1) * 32), 28);
    b.putInt((int) crc.getValue());
    return b.array();
  }
}
