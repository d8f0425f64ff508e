package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.QuotaLedgerStatus;
import dev.quartermaster.store.KeyValue;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A cohort's quota ledger, read by the rules of every worker's create, stays decoded however many
 * other objects are read between two creates; anything else shares a bounded table, where a newer
 * key takes an older one's slot.
 */
class DecodedObjectsTest {
  /** More keys than the shared table has slots: every slot is taken again. */
  private static final int OTHERS = 40_000;

  @Test
  void aLedgerStaysDecodedWhileTheFleetsObjectsPassThroughTheSharedTable() {
    var decoded = new DecodedObjects();
    var ledger =
        new QuotaLedger(ObjectMeta.named("c"), QuotaLedgerSpec.EMPTY, QuotaLedgerStatus.EMPTY);
    var ledgerKv = kv(StoredObjects.key(Kinds.QUOTA_LEDGER, "c"), "ledger", 7);
    var queue = new Queue(ObjectMeta.named("first"), QueueSpec.UNLIMITED, null);
    var queueKv = kv(StoredObjects.key(Kinds.QUEUE, "first"), "first", 8);
    decoded.put(ledgerKv, ledger);
    decoded.put(queueKv, queue);
    for (int i = 0; i < OTHERS; i++) {
      var name = "q-" + i;
      decoded.put(
          kv(StoredObjects.key(Kinds.QUEUE, name), name, 9 + i),
          new Queue(ObjectMeta.named(name), QueueSpec.UNLIMITED, null));
    }

    assertThat(decoded.get(Kinds.QUOTA_LEDGER, ledgerKv)).containsSame(ledger);
    assertThat(decoded.get(Kinds.QUEUE, queueKv)).as("pushed out of its slot").isEmpty();
    // Another revision of the ledger, or other bytes, is not the one held.
    assertThat(decoded.get(Kinds.QUOTA_LEDGER, kv(ledgerKv.key(), "ledger", 70))).isEmpty();
    assertThat(decoded.get(Kinds.QUOTA_LEDGER, kv(ledgerKv.key(), "changed", 7))).isEmpty();
  }

  @Test
  void aLedgerThisRegistryWroteIsHeldAsWrittenAndNothingElseIs() {
    var decoded = new DecodedObjects();
    var ledger =
        new QuotaLedger(ObjectMeta.named("c"), QuotaLedgerSpec.EMPTY, QuotaLedgerStatus.EMPTY);
    var ledgerKv = kv(StoredObjects.key(Kinds.QUOTA_LEDGER, "c"), "ledger", 7);
    var queue = new Queue(ObjectMeta.named("q"), QueueSpec.UNLIMITED, null);
    var queueKv = kv(StoredObjects.key(Kinds.QUEUE, "q"), "q", 8);
    decoded.wrote(ledgerKv, ledger);
    decoded.wrote(queueKv, queue);
    assertThat(decoded.get(Kinds.QUOTA_LEDGER, ledgerKv)).containsSame(ledger);
    assertThat(decoded.get(Kinds.QUEUE, queueKv)).isEmpty();
  }

  private static KeyValue kv(String key, String value, long revision) {
    return new KeyValue(key, value.getBytes(StandardCharsets.UTF_8), revision, revision, 1);
  }
}
