package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes the seed inputs of {@link LedgerFuzzTest} from a real {@link DurableLedger} (snapshot,
 * journal, mark; those from before journal format 2 are kept as {@code recovery/v1-*}): {@code
 * -Dqm.fuzz.seeds=agent/src/test/resources/dev/quartermaster/agent/checkpoint/LedgerFuzzTestInputs}.
 */
@EnabledIfSystemProperty(named = "qm.fuzz.seeds", matches = ".+")
class LedgerFuzzSeeds {
  @Test
  void write(@TempDir Path dir) throws Exception {
    var out = Path.of(System.getProperty("qm.fuzz.seeds"));
    Files.createDirectories(out.resolve("snapshot"));
    Files.createDirectories(out.resolve("recovery"));
    var env = new DeterministicEnv(7);
    var file = new AtomicLedgerFile(dir.resolve("ledger.json"));
    var durable =
        DurableLedger.open(file, "boot-1", env, ClaimLedger.DEFAULT_TOMBSTONE_TTL).ledger();
    seed(out, file, "empty");
    for (int n = 0; n < 3; n++) {
      durable
          .ledger()
          .prepare(PrepareRequest.of(new ClaimRef("uid-" + n, "claim-" + n), List.of("gpu-" + n)));
      durable.persist();
    }
    durable.ledger().complete("uid-0", List.of("quartermaster.dev/gpu=uid-0-gpu-0"));
    durable.ledger().unprepare(new ClaimRef("uid-1", "claim-1"));
    durable.persist();
    seed(out, file, "three-claims");
    Files.write(
        out.resolve("snapshot").resolve("three-claims-compacted.json"),
        CheckpointCodec.encode(durable.ledger().snapshot(), "boot-1", 3));
  }

  private static void seed(Path out, AtomicLedgerFile file, String name) throws Exception {
    var journal = (FileJournal) file.journal().orElseThrow();
    var snapshot = Files.readAllBytes(file.path());
    var journalBytes = Files.readAllBytes(journal.path());
    var mark = Files.readAllBytes(Path.of(journal.markLocation()));
    Files.write(out.resolve("snapshot").resolve(name + ".json"), snapshot);
    Files.write(
        out.resolve("recovery").resolve(name),
        LedgerFuzzTest.container(0x3f, snapshot, journalBytes, mark));
    Files.write(
        out.resolve("recovery").resolve(name + "-no-mark"),
        LedgerFuzzTest.container(0x1b, snapshot, journalBytes, new byte[0]));
    Files.write(
        out.resolve("recovery").resolve(name + "-journal-only"),
        LedgerFuzzTest.container(0x16, snapshot, journalBytes, mark));
    // Issue 30 item 8: the mark deleted and the journal's tail cut; its header's count must still
    // show the loss.
    var cut =
        java.util.Arrays.copyOf(
            journalBytes, Math.max(LedgerJournal.FIRST_FRAME, journalBytes.length - 100));
    Files.write(
        out.resolve("recovery").resolve(name + "-no-mark-cut"),
        LedgerFuzzTest.container(0x03, snapshot, cut, new byte[0]));
  }
}
