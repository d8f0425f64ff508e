package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.queue.QuotaLedgerStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cohort's quota ledger, read by the rules of every worker's create, stays decoded however many
 * other objects are read between two creates; anything else shares a bounded table, where a newer
 * key takes an older one's slot. What the registry wrote is held from its write on.
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

  /**
   * A node's {@code Node} is read again at its every heartbeat, ten seconds later; between two, at
   * 10,000 nodes, the fleet's tasks and claims took most slots of the shared table. It is held
   * apart, and its entry goes with it when the node is deleted.
   */
  @Test
  void aNodeStaysDecodedBetweenItsHeartbeatsAndGoesWhenDeleted(@TempDir Path dir) {
    var store = SqliteStore.open(dir.resolve("store.db"));
    try {
      var api = new ObjectRegistry(store, new DeterministicEnv(3));
      var node = api.create(new Node(ObjectMeta.named("node-0"), NodeSpec.EMPTY, NodeStatus.EMPTY));
      var decoded = new DecodedObjects();
      var nodeKv = kv(StoredObjects.key(Kinds.NODE, "node-0"), "node", 7);
      decoded.put(nodeKv, node);
      // Objects keep coming until one took the slot the node's key maps to in the shared table.
      for (int i = 0; !DecodedObjects.sameSlot(nodeKv.key(), queueKey(i - 1)); i++) {
        var name = "q-" + i;
        decoded.put(
            kv(queueKey(i), name, 9 + i),
            new Queue(ObjectMeta.named(name), QueueSpec.UNLIMITED, null));
      }
      assertThat(decoded.get(Kinds.NODE, nodeKv)).containsSame(node);

      int held = api.storedHeldPerKey();
      api.delete(Kinds.NODE, "node-0");
      assertThat(api.storedHeldPerKey()).as("the deleted node's entry is gone").isEqualTo(held - 1);
    } finally {
      store.close();
    }
  }

  /**
   * What this registry wrote is read back without a decode however far the store has moved on
   * since: the watches' window of recent revisions (1,024) no longer holds it, and its next update,
   * most often this process's own seconds later, decoded it again from JSON.
   */
  @Test
  void anObjectThisRegistryWroteIsReadBackWithoutADecodeLongAfterItsWrite(@TempDir Path dir) {
    var store = SqliteStore.open(dir.resolve("store.db"));
    try {
      var api = new ObjectRegistry(store, new DeterministicEnv(3));
      var first = api.create(new Queue(ObjectMeta.named("first"), QueueSpec.UNLIMITED, null));
      for (int i = 0; i < 1_100; i++) {
        api.create(new Queue(ObjectMeta.named("q-" + i), QueueSpec.UNLIMITED, null));
      }
      long reused = api.storedReuses();

      assertThat(api.get(Kinds.QUEUE, "first")).contains(first);
      assertThat(api.storedReuses())
          .as("answered from the table, not decoded")
          .isEqualTo(reused + 1);
    } finally {
      store.close();
    }
  }

  /**
   * The rules of a batch read its earlier writes as planned (version 0, at the revision each
   * replaces): that is the writer's object, not a stored revision, and it must not take the slot of
   * the revision the store holds, which every later read would then decode again.
   */
  @Test
  void aBatchsPlannedWriteReadByItsRulesLeavesTheStoredRevisionHeld() {
    var stored = new StoredObjects(new WatchDecodes());
    var key = StoredObjects.key(Kinds.QUEUE, "q");
    var queue = new Queue(ObjectMeta.named("q"), QueueSpec.UNLIMITED, null);
    var storedKv = new KeyValue(key, ObjectCodec.toJson(queue), 8, 8, 1);
    stored.wrote(storedKv, queue);
    var planned =
        new Queue(ObjectMeta.named("q").withLabels(Map.of("team", "a")), QueueSpec.UNLIMITED, null);
    var plannedKv = new KeyValue(key, ObjectCodec.toJson(planned), 8, 8, 0);

    assertThat(stored.decode(Kinds.QUEUE, plannedKv).metadata().labels())
        .containsEntry("team", "a");
    long reused = stored.reused();
    assertThat(stored.decode(Kinds.QUEUE, storedKv)).isSameAs(queue);
    assertThat(stored.reused()).as("the stored revision still held").isEqualTo(reused + 1);
  }

  /** A watch far behind decodes an old revision: the later one held stays. */
  @Test
  void anOldRevisionDecodedLateLeavesTheLaterOneHeld() {
    var decoded = new DecodedObjects();
    var key = StoredObjects.key(Kinds.QUEUE, "q");
    var later = new Queue(ObjectMeta.named("q"), QueueSpec.UNLIMITED, null);
    var laterKv = kv(key, "later", 9);
    decoded.put(laterKv, later);
    decoded.put(kv(key, "earlier", 5), new Queue(ObjectMeta.named("q"), QueueSpec.UNLIMITED, null));
    decoded.put(kv(key, "earlier", 5), new Queue(ObjectMeta.named("q"), QueueSpec.UNLIMITED, null));
    var ledgerKey = StoredObjects.key(Kinds.QUOTA_LEDGER, "c");
    var ledger =
        new QuotaLedger(ObjectMeta.named("c"), QuotaLedgerSpec.EMPTY, QuotaLedgerStatus.EMPTY);
    decoded.put(kv(ledgerKey, "later", 9), ledger);
    decoded.put(
        kv(ledgerKey, "earlier", 5),
        new QuotaLedger(ObjectMeta.named("c"), QuotaLedgerSpec.EMPTY, QuotaLedgerStatus.EMPTY));

    assertThat(decoded.get(Kinds.QUEUE, laterKv)).containsSame(later);
    assertThat(decoded.get(Kinds.QUOTA_LEDGER, kv(ledgerKey, "later", 9))).containsSame(ledger);
  }

  private static String queueKey(int i) {
    return StoredObjects.key(Kinds.QUEUE, "q-" + i);
  }

  private static KeyValue kv(String key, String value, long revision) {
    return new KeyValue(key, value.getBytes(StandardCharsets.UTF_8), revision, revision, 1);
  }
}
