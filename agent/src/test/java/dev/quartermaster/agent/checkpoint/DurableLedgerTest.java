package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableLedgerTest {
  private final DeterministicEnv env = new DeterministicEnv(3);
  private static final Duration TTL = ClaimLedger.DEFAULT_TOMBSTONE_TTL;

  @Test
  void aFreshLedgerIsWrittenAtOnceAndReloads(@TempDir Path dir) throws Exception {
    var file = new AtomicLedgerFile(dir.resolve("ledger.json"));
    var opened = DurableLedger.open(file, "boot-1", env, TTL);
    assertThat(opened.fresh()).isTrue();
    assertThat(Files.exists(file.path())).isTrue();
    var a = new ClaimRef("uid-a", "claim-a");
    opened.ledger().ledger().prepare(PrepareRequest.of(a, List.of("gpu-0")));
    opened.ledger().persist();
    var again = DurableLedger.open(file, "boot-1", env, TTL);
    assertThat(again.fresh()).isFalse();
    assertThat(again.ledger().ledger().snapshot()).isEqualTo(opened.ledger().ledger().snapshot());
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("ledger.json", "ledger.journal", "ledger.journal.mark");
    }
  }

  @Test
  void anotherBootDiscardsDeviceStateAndListsWhatWasDropped() throws Exception {
    var file = new SimulatedLedgerFile();
    var first = DurableLedger.open(file, "boot-1", env, TTL).ledger();
    first
        .ledger()
        .prepare(
            new PrepareRequest(
                new ClaimRef("uid-a", "claim-a"), List.of("gpu-0"), Optional.of("cd-1")));
    first.persist();
    var afterReboot = DurableLedger.open(file, "boot-2", env, TTL);
    assertThat(afterReboot.droppedByReboot())
        .extracting(c -> c.claim().uid())
        .containsExactly("uid-a");
    assertThat(afterReboot.ledger().ledger().snapshot().claims()).isEmpty();
    // The discard itself is durable, with the new boot id.
    assertThat(CheckpointCodec.decode(file.durable().orElseThrow(), "x").bootId())
        .isEqualTo("boot-2");
    assertThat(afterReboot.ledger().ledger().version()).isGreaterThan(first.ledger().version());
  }

  @Test
  void unsyncedWritesAreLostOnACrashAndAFailedWriteIsNotAcknowledged() throws Exception {
    var file = new SimulatedLedgerFile();
    var durable = DurableLedger.open(file, "boot-1", env, TTL).ledger();
    var a = new ClaimRef("uid-a", "claim-a");
    durable.ledger().prepare(PrepareRequest.of(a, List.of("gpu-0")));
    file.failNextWrites(1);
    assertThatThrownBy(durable::persist).isInstanceOf(IOException.class);
    file.crash();
    assertThat(DurableLedger.open(file, "boot-1", env, TTL).ledger().ledger().snapshot().claims())
        .isEmpty();
    durable.persist(); // the retry covers it
    assertThat(
            DurableLedger.open(file, "boot-1", env, TTL).ledger().ledger().snapshot().get(a.uid()))
        .isPresent();
  }

  @Test
  void theMarkIsSyncedOncePerIntervalSoACrashLeavesItBehindTheJournalButNeverAhead()
      throws Exception {
    var file = new SimulatedLedgerFile();
    var durable = DurableLedger.open(file, "boot-1", env, TTL).ledger();
    var journal = file.journal().orElseThrow();
    env.advance(DurableLedger.MARK_SYNC_INTERVAL);
    for (int i = 0;
        i < 5;
        i++) { // the first commit syncs the mark; the next four, within the interval, do not
      durable
          .ledger()
          .prepare(PrepareRequest.of(new ClaimRef("uid-" + i, "claim-" + i), List.of("gpu-" + i)));
      durable.persist();
    }
    assertThat(JournalMark.decode(journal.readMark().orElseThrow()).orElseThrow().frames())
        .isEqualTo(5);

    file.crash(); // a power cut: the unsynced marks are gone, every acknowledged journal frame is
    // not
    assertThat(JournalMark.decode(journal.readMark().orElseThrow()).orElseThrow().frames())
        .isEqualTo(1);
    var reopened = DurableLedger.open(file, "boot-1", env, TTL).ledger();
    assertThat(reopened.ledger().snapshot().claims()).hasSize(5);

    env.advance(DurableLedger.MARK_SYNC_INTERVAL);
    reopened
        .ledger()
        .prepare(PrepareRequest.of(new ClaimRef("uid-5", "claim-5"), List.of("gpu-5")));
    reopened.persist();
    file.crash();
    assertThat(JournalMark.decode(journal.readMark().orElseThrow()).orElseThrow().frames())
        .isEqualTo(6);
    assertThat(DurableLedger.open(file, "boot-1", env, TTL).ledger().ledger().snapshot().claims())
        .hasSize(6);
  }

  @Test
  void aPowerCutLeavesTheJournalHeadersCountBehindTheJournalNeverAhead() throws Exception {
    var file = new SimulatedLedgerFile();
    var durable = DurableLedger.open(file, "boot-1", env, TTL).ledger();
    for (int i = 0; i < 3; i++) {
      durable
          .ledger()
          .prepare(PrepareRequest.of(new ClaimRef("uid-" + i, "claim-" + i), List.of("gpu-" + i)));
      durable.persist();
    }
    long forces = file.forces();

    file.crash(); // the count written after the last fsync is lost; the record it vouched for is
    // not

    assertThat(file.forces()).as("no fsync beyond one per commit").isEqualTo(forces);
    var journal = file.journal().orElseThrow().read().orElseThrow();
    var scan = LedgerJournal.scan(journal, "x");
    assertThat(scan.frames()).hasSize(3);
    assertThat(scan.header().acknowledged()).get().extracting(JournalMark::frames).isEqualTo(2);
    assertThat(DurableLedger.open(file, "boot-1", env, TTL).ledger().ledger().snapshot().claims())
        .hasSize(3);
  }

  @Test
  void concurrentChangesShareFsyncsAndEachReturnsOnlyOnceCovered(@TempDir Path dir)
      throws Exception {
    // Group commit needs real concurrency: this is the I/O edge, on virtual threads; no timing is
    // asserted.
    var counting = new CountingFile(new AtomicLedgerFile(dir.resolve("ledger.json")));
    var durable =
        DurableLedger.open(counting, "boot-1", new dev.quartermaster.core.env.SystemEnv(), TTL)
            .ledger();
    int callers = 64;
    var start = new CountDownLatch(1);
    var failures = new AtomicInteger();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new ArrayList<java.util.concurrent.Future<?>>();
      for (int i = 0; i < callers; i++) {
        int n = i;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  var ledger = durable.ledger();
                  ledger.prepare(
                      PrepareRequest.of(
                          new ClaimRef("uid-" + n, "claim-" + n), List.of("gpu-" + n)));
                  long mine = ledger.version();
                  durable.awaitDurable(mine);
                  // What is on disk now must already contain this caller's entry.
                  var onDisk = CheckpointCodec.decode(counting.read().orElseThrow(), "x").state();
                  if (onDisk.get("uid-" + n).isEmpty()) {
                    failures.incrementAndGet();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (var f : futures) {
        f.get();
      }
    }
    assertThat(failures).hasValue(0);
    assertThat(counting.writes.get()).isLessThanOrEqualTo(callers + 1);
    assertThat(durable.ledger().snapshot().claims()).hasSize(callers);
  }

  /** Counts writes through to a real file. */
  private static final class CountingFile implements LedgerFile {
    final LedgerFile inner;
    final AtomicInteger writes = new AtomicInteger();

    CountingFile(LedgerFile inner) {
      this.inner = inner;
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
      writes.incrementAndGet();
      inner.write(bytes);
    }
  }
}
