package dev.quartermaster.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.checkpoint.AtomicLedgerFile;
import dev.quartermaster.agent.checkpoint.CorruptCheckpointException;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.StateDirLock;
import dev.quartermaster.agent.checkpoint.StateDirLockedException;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerToolsTest {
  private final DeterministicEnv env = new DeterministicEnv(5);

  private static String capture(ThrowingConsumer<PrintStream> body) throws Exception {
    var bytes = new ByteArrayOutputStream();
    body.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  interface ThrowingConsumer<T> {
    void accept(T t) throws Exception;
  }

  @Test
  void showPrintsEveryEntryAndResetIsExplicitListsWhatItDropsAndKeepsTheOldFile(@TempDir Path state)
      throws Exception {
    var durable =
        DurableLedger.open(
                new AtomicLedgerFile(LedgerShow.ledgerFile(state)),
                "boot-1",
                env,
                ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    durable.ledger().prepare(PrepareRequest.of(new ClaimRef("uid-a", "claim-a"), List.of("gpu-0")));
    durable.persist();
    assertThat(capture(out -> LedgerShow.run(state, out)))
        .contains("uid-a")
        .contains("claim-a")
        .contains("PrepareStarted")
        .contains("gpu-0")
        .contains("boot boot-1");

    try (var held = StateDirLock.acquire(state)) {
      assertThatThrownBy(() -> LedgerReset.run(state, "boot-1", env, System.out))
          .isInstanceOf(StateDirLockedException.class);
    }
    var printed =
        capture(
            out -> {
              var report = LedgerReset.run(state, "boot-1", env, out);
              assertThat(report.dropped())
                  .extracting(c -> c.claim().uid())
                  .containsExactly("uid-a");
              assertThat(report.backup()).exists();
            });
    assertThat(printed).contains("dropped 1 entries").contains("uid-a (claim-a)");
    assertThat(capture(out -> LedgerShow.run(state, out))).contains("0 entries");
    var reopened =
        DurableLedger.open(
            new AtomicLedgerFile(LedgerShow.ledgerFile(state)),
            "boot-1",
            env,
            ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    assertThat(reopened.ledger().ledger().snapshot().claims())
        .as("the agent starts on the reset ledger")
        .isEmpty();
  }

  @Test
  void aLedgerWhoseFilesWereLostIsRefusedUntilResetDeliberately(@TempDir Path state)
      throws Exception {
    var durable =
        DurableLedger.open(
                new AtomicLedgerFile(LedgerShow.ledgerFile(state)),
                "boot-1",
                env,
                ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    durable.ledger().prepare(PrepareRequest.of(new ClaimRef("uid-a", "claim-a"), List.of("gpu-0")));
    durable.persist();
    Files.delete(LedgerShow.ledgerFile(state));
    Files.delete(LedgerShow.journalFile(state));

    assertThatThrownBy(
            () ->
                DurableLedger.open(
                    new AtomicLedgerFile(LedgerShow.ledgerFile(state)),
                    "boot-1",
                    env,
                    ClaimLedger.DEFAULT_TOMBSTONE_TTL))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("ACKNOWLEDGED_LOST")
        .hasMessageContaining(LedgerShow.markFile(state).toString());
    var printed = capture(out -> LedgerReset.run(state, "boot-1", env, out));
    assertThat(printed).contains("could not be read").contains("ACKNOWLEDGED_LOST");
    assertThat(
            DurableLedger.open(
                    new AtomicLedgerFile(LedgerShow.ledgerFile(state)),
                    "boot-1",
                    env,
                    ClaimLedger.DEFAULT_TOMBSTONE_TTL)
                .ledger()
                .ledger()
                .snapshot()
                .claims())
        .isEmpty();
  }

  @Test
  void showReportsACorruptLedgerAndResetStillWorksSayingItCouldNotList(@TempDir Path state)
      throws Exception {
    Files.createDirectories(state);
    Files.writeString(
        LedgerShow.ledgerFile(state),
        "{\"format\":\"quartermaster.dev/claim-ledger\",\"version\":9}");
    assertThatThrownBy(() -> LedgerShow.run(state, System.out))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("UNSUPPORTED_VERSION");
    var printed = capture(out -> LedgerReset.run(state, "boot-1", env, out));
    assertThat(printed).contains("could not be read").contains("UNSUPPORTED_VERSION");
    assertThat(capture(out -> LedgerShow.run(state, out))).contains("0 entries");
  }
}
