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
      opened.ledger().ledger().prepare(PrepareRequest.of(new ClaimRef("uid-" + i, "claim-" + i), List.of("gpu-" + i)));
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
        .isInstanceOfSatisfying(CorruptCheckpointException.class,
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
    assertThat(Files.size(journal)).as("nothing is cut off a journal that failed its check").isEqualTo(before.length / 2);
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
        .isInstanceOfSatisfying(CorruptCheckpointException.class,
            e -> assertThat(e.problem()).isEqualTo(Problem.ACKNOWLEDGED_LOST))
        .hasMessageContaining(snapshot.toString())
        .hasMessageContaining(RECORDS + " records acknowledged");
  }

  @Test
  void aGenuinelyTornLastAppendIsCutAndEveryAcknowledgedRecordKept() throws Exception {
    long acknowledged = Files.size(journal);
    // An append the crash interrupted before its fsync (and so before its mark): half a frame.
    byte[] frame = LedgerJournal.frame(List.of());
    Files.write(journal, Arrays.copyOf(frame, frame.length / 2), java.nio.file.StandardOpenOption.APPEND);

    var opened = reopen();

    assertThat(opened.ledger().ledger().snapshot().claims()).hasSize(RECORDS);
    assertThat(Files.size(journal)).as("the torn tail is cut, nothing acknowledged").isEqualTo(acknowledged);
    opened.ledger().ledger().prepare(PrepareRequest.of(new ClaimRef("uid-x", "claim-x"), List.of("gpu-x")));
    opened.ledger().persist();
    assertThat(reopen().ledger().ledger().snapshot().claims()).hasSize(RECORDS + 1);
  }
}
