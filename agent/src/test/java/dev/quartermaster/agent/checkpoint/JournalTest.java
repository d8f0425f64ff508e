package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.LedgerChange;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal: torn tails, corruption, compaction's crash windows, and group commit. */
class JournalTest {
  private static final Duration TTL = ClaimLedger.DEFAULT_TOMBSTONE_TTL;
  private static final String BOOT = "boot-1";
  private final DeterministicEnv env = new DeterministicEnv(11);

  private static ClaimRef claim(int n) {
    return new ClaimRef("uid-" + n, "claim-" + n);
  }

  private static void prepare(DurableLedger durable, int n) throws IOException {
    durable.ledger().prepare(PrepareRequest.of(claim(n), List.of("gpu-" + n)));
    durable.persist();
  }

  private DurableLedger open(Path dir) throws IOException {
    return DurableLedger.open(new AtomicLedgerFile(dir.resolve("ledger.json")), BOOT, env, TTL)
        .ledger();
  }

  @Test
  void changesGoToTheJournalNotTheSnapshotAndReplayOnOpen(@TempDir Path dir) throws Exception {
    var durable = open(dir);
    var snapshot = Files.readAllBytes(dir.resolve("ledger.json"));
    for (int n = 0; n < 5; n++) {
      prepare(durable, n);
    }
    durable.ledger().complete("uid-0", List.of("quartermaster.dev/gpu=uid-0-gpu-0"));
    durable.ledger().unprepare(claim(1));
    durable.persist();
    assertThat(Files.readAllBytes(dir.resolve("ledger.json")))
        .as("the snapshot is not rewritten")
        .isEqualTo(snapshot);
    assertThat(durable.compactions()).isEqualTo(1); // the one at open
    var again = open(dir).ledger().snapshot();
    assertThat(again).isEqualTo(durable.ledger().snapshot());
    assertThat(again.get("uid-0")).get().isInstanceOf(ClaimState.PrepareCompleted.class);
    assertThat(again.get("uid-1")).get().isInstanceOf(ClaimState.PrepareAborted.class);
  }

  @Test
  void aTornLastFrameIsCutOffAndEverythingBeforeItIsKept(@TempDir Path dir) throws Exception {
    var durable = open(dir);
    prepare(durable, 0);
    prepare(durable, 1);
    var journal = dir.resolve("ledger.journal");
    long acknowledged = Files.size(journal);
    // Half a frame (an append cut short by a crash), then a whole frame with a flipped byte (an
    // append whose pages only partly reached the disk): both are the tail, neither was
    // acknowledged.
    var expected = new ArrayList<>(List.of("uid-0", "uid-1"));
    int n = 2;
    for (var tail : List.of(half(nextFrame(n)), flipped(nextFrame(n)))) {
      Files.write(journal, tail, StandardOpenOption.APPEND);
      var reopened = open(dir);
      assertThat(reopened.ledger().snapshot().claims().keySet())
          .containsExactlyElementsOf(expected);
      assertThat(Files.size(journal))
          .as("cut back to the last whole frame")
          .isEqualTo(acknowledged);
      // Appending after the cut works, and what is appended survives the next open.
      prepare(reopened, n);
      expected.add("uid-" + n);
      assertThat(open(dir).ledger().snapshot().claims().keySet())
          .containsExactlyElementsOf(expected);
      acknowledged = Files.size(journal);
      n++;
    }
  }

  @Test
  void aBadFrameFollowedByAValidOneIsCorruptionNamingFileAndOffset(@TempDir Path dir)
      throws Exception {
    var durable = open(dir);
    prepare(durable, 0);
    prepare(durable, 1);
    prepare(durable, 2);
    var journal = dir.resolve("ledger.journal");
    var bytes = Files.readAllBytes(journal);
    int firstFrame = LedgerJournal.header(1, BOOT).length;
    bytes[firstFrame + 20] ^= 0x01; // inside the first frame's payload
    Files.write(journal, bytes);
    assertThatThrownBy(() -> open(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(journal.toString())
        .hasMessageContaining("byte offset " + firstFrame)
        .hasMessageContaining("CHECKSUM_MISMATCH");
    assertThat(Files.readAllBytes(journal)).as("nothing is cut off or rewritten").isEqualTo(bytes);
    // `ledger show` reports the same error instead of printing a partial ledger.
    assertThatThrownBy(() -> LedgerRecovery.read(new AtomicLedgerFile(dir.resolve("ledger.json"))))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("byte offset " + firstFrame);
  }

  @Test
  void aMissingChangeIsCorruptionToo(@TempDir Path dir) throws Exception {
    var durable = open(dir);
    prepare(durable, 0);
    var journal = dir.resolve("ledger.journal");
    // A frame that skips a version: whole and checksummed, but a change before it is missing.
    var skip =
        LedgerJournal.frame(
            List.of(
                new LedgerChange.Put(
                    durable.ledger().version() + 2,
                    new ClaimState.PrepareStarted(
                        claim(9), List.of("gpu-9"), Optional.empty(), env.now()))));
    Files.write(journal, skip, StandardOpenOption.APPEND);
    assertThatThrownBy(() -> open(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("INVALID_CONTENT")
        .hasMessageContaining("comes next");
  }

  @Test
  void aCrashAfterTheSnapshotBeforeTheNewJournalLosesNothing(@TempDir Path dir) throws Exception {
    var files = new CrashingFiles(dir.resolve("ledger.json"));
    var durable = DurableLedger.open(files, BOOT, env, TTL, 2_000).ledger();
    files.crashOnJournalReplace = true;
    int n = 0;
    // Prepare until a commit compacts: its snapshot is written, then the "process dies" before
    // the journal is replaced. The older journal still holds frames the snapshot also holds.
    while (true) {
      durable.ledger().prepare(PrepareRequest.of(claim(n), List.of("gpu-" + n)));
      n++;
      try {
        durable.persist();
      } catch (SimulatedCrash e) {
        break;
      }
    }
    var before = durable.ledger().snapshot();
    var stale = LedgerJournal.scan(Files.readAllBytes(dir.resolve("ledger.journal")), "x");
    assertThat(stale.frames()).as("the old journal has frames").isNotEmpty();
    var snapshot = CheckpointCodec.decode(Files.readAllBytes(dir.resolve("ledger.json")), "x");
    assertThat(snapshot.journalGeneration()).isGreaterThan(stale.header().generation());

    var reopened = open(dir);
    assertThat(reopened.ledger().snapshot()).isEqualTo(before); // the snapshot held every change
    var fresh = LedgerJournal.scan(Files.readAllBytes(dir.resolve("ledger.journal")), "x");
    assertThat(fresh.header().generation()).isEqualTo(snapshot.journalGeneration());
    assertThat(fresh.frames()).isEmpty();
    prepare(reopened, n);
    assertThat(open(dir).ledger().snapshot().get("uid-" + n)).isPresent();
  }

  @Test
  void aCrashBeforeTheSnapshotsRenameKeepsTheOldPairWithEveryAcknowledgedChange(@TempDir Path dir)
      throws Exception {
    var files = new CrashingFiles(dir.resolve("ledger.json"));
    var durable = DurableLedger.open(files, BOOT, env, TTL, 2_000).ledger();
    files.crashOnSnapshotWrite = true;
    var acknowledged = durable.ledger().snapshot();
    int n = 0;
    while (true) {
      durable.ledger().prepare(PrepareRequest.of(claim(n), List.of("gpu-" + n)));
      n++;
      try {
        durable.persist();
        acknowledged = durable.ledger().snapshot();
      } catch (SimulatedCrash e) {
        break;
      }
    }
    // The change whose commit died was never acknowledged; everything before it is there.
    assertThat(open(dir).ledger().snapshot()).isEqualTo(acknowledged);
  }

  @Test
  void aJournalNewerThanItsSnapshotIsRefused(@TempDir Path dir) throws Exception {
    // The reverse order (new journal, then snapshot) is never written; if the files say it
    // happened, one of them came from elsewhere, and guessing which would be a silent reset.
    var durable = open(dir);
    prepare(durable, 0);
    Files.write(dir.resolve("ledger.journal"), LedgerJournal.header(7, BOOT));
    assertThatThrownBy(() -> open(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("journal generation 7 is newer");
  }

  @Test
  void aJournalWithoutItsSnapshotIsRefused(@TempDir Path dir) throws Exception {
    prepare(open(dir), 0);
    Files.delete(dir.resolve("ledger.json"));
    assertThatThrownBy(() -> open(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("snapshot");
  }

  @Test
  void theJournalCompactsIntoASnapshotWhenItGrows(@TempDir Path dir) throws Exception {
    var file = new AtomicLedgerFile(dir.resolve("ledger.json"));
    var durable = DurableLedger.open(file, BOOT, env, TTL, 4_000).ledger();
    for (int n = 0; n < 100; n++) {
      prepare(durable, n);
    }
    assertThat(durable.compactions()).isGreaterThan(2);
    assertThat(Files.size(dir.resolve("ledger.journal"))).isLessThanOrEqualTo(4_000);
    assertThat(open(dir).ledger().snapshot()).isEqualTo(durable.ledger().snapshot());
  }

  @Test
  void concurrentCallersShareJournalFsyncsAndEachReturnsOnlyOnceDurable(@TempDir Path dir)
      throws Exception {
    // Real fsyncs and real concurrency (virtual threads): no timing is asserted, only that 16
    // callers' changes needed fewer fsyncs than changes, and that each saw its own change on disk.
    var files = new CrashingFiles(dir.resolve("ledger.json"));
    var durable = DurableLedger.open(files, BOOT, new SystemEnv(), TTL).ledger();
    long forcesBefore = files.forces.get();
    int callers = 16;
    int perCaller = 20;
    var start = new CountDownLatch(1);
    var missing = new AtomicInteger();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<Future<?>>();
      for (int c = 0; c < callers; c++) {
        int caller = c;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perCaller; i++) {
                    var ref = new ClaimRef("uid-" + caller + "-" + i, "claim-" + caller);
                    var ledger = durable.ledger();
                    ledger.prepare(PrepareRequest.of(ref, List.of("gpu-" + caller)));
                    durable.awaitDurable(ledger.version());
                    ledger.complete(ref.uid(), List.of());
                    durable.awaitDurable(ledger.version());
                    if (i % 5 == 0) {
                      // What is on disk now (snapshot + journal) already holds this caller's
                      // completion.
                      var onDisk =
                          LedgerRecovery.read(new AtomicLedgerFile(dir.resolve("ledger.json")))
                              .orElseThrow()
                              .state();
                      if (!(onDisk.get(ref.uid()).orElseThrow()
                          instanceof ClaimState.PrepareCompleted)) {
                        missing.incrementAndGet();
                      }
                    }
                    ledger.unprepare(ref);
                    durable.awaitDurable(ledger.version());
                  }
                  return null;
                }));
      }
      start.countDown();
      for (var f : futures) {
        f.get();
      }
    }
    int changes = callers * perCaller * 3;
    long forces = files.forces.get() - forcesBefore;
    assertThat(missing).hasValue(0);
    assertThat(forces)
        .as("journal fsyncs for %d changes", changes)
        .isPositive()
        .isLessThan(changes);
    assertThat(open(dir).ledger().snapshot()).isEqualTo(durable.ledger().snapshot());
  }

  /**
   * The next frame a ledger would append for claim {@code n} (its content does not matter here).
   */
  private byte[] nextFrame(int n) {
    return LedgerJournal.frame(
        List.of(
            new LedgerChange.Put(
                1_000,
                new ClaimState.PrepareStarted(
                    claim(n), List.of("gpu-" + n), Optional.empty(), env.now()))));
  }

  private static byte[] half(byte[] frame) {
    return Arrays.copyOf(frame, frame.length / 2);
  }

  private static byte[] flipped(byte[] frame) {
    var out = frame.clone();
    out[out.length - 3] ^= 0x10;
    return out;
  }

  /** The process "dies" here: an exception that leaves the files as a kill at this point would. */
  private static final class SimulatedCrash extends IOException {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String where) {
      super("simulated crash " + where);
    }
  }

  /**
   * Real files with a crash point before the snapshot's write or the journal's replacement, and an
   * fsync count.
   */
  private static final class CrashingFiles implements LedgerFile {
    final AtomicLedgerFile inner;
    final AtomicInteger forces = new AtomicInteger();
    volatile boolean crashOnSnapshotWrite;
    volatile boolean crashOnJournalReplace;

    CrashingFiles(Path path) {
      inner = new AtomicLedgerFile(path);
    }

    @Override
    public String location() {
      return inner.location();
    }

    @Override
    public Optional<byte[]> read() throws IOException {
      return inner.read();
    }

    @Override
    public void write(byte[] bytes) throws IOException {
      if (crashOnSnapshotWrite) {
        throw new SimulatedCrash("before the snapshot's rename");
      }
      inner.write(bytes);
    }

    @Override
    public Optional<JournalFile> journal() {
      var j = inner.journal().orElseThrow();
      return Optional.of(
          new JournalFile() {
            @Override
            public String location() {
              return j.location();
            }

            @Override
            public Optional<byte[]> read() throws IOException {
              return j.read();
            }

            @Override
            public String markLocation() {
              return j.markLocation();
            }

            @Override
            public Optional<byte[]> readMark() throws IOException {
              return j.readMark();
            }

            @Override
            public void writeMark(JournalMark mark) throws IOException {
              j.writeMark(mark);
            }

            @Override
            public void writeHeaderMark(JournalMark mark) throws IOException {
              j.writeHeaderMark(mark);
            }

            @Override
            public void forceMark() throws IOException {
              j.forceMark();
            }

            @Override
            public void replace(byte[] content) throws IOException {
              if (crashOnJournalReplace) {
                throw new SimulatedCrash("after the snapshot, before the new journal");
              }
              j.replace(content);
            }

            @Override
            public void append(byte[] bytes) throws IOException {
              j.append(bytes);
            }

            @Override
            public void force() throws IOException {
              forces.incrementAndGet();
              j.force();
            }

            @Override
            public void truncate(long size) throws IOException {
              j.truncate(size);
            }
          });
    }
  }
}
