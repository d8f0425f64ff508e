package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader's writes: fenced by its term's token, and each records that term beside its changes, so
 * a store's history says under which term every controller write was decided (TERM). The naive view
 * records the term without the compare: its write of an ended term lands.
 */
class FencedStoreTest {
  private static final String FENCE = "/leases/controllers/term";

  @TempDir Path dir;
  Store store;
  ObjectRegistry registry;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    registry = new ObjectRegistry(store, new DeterministicEnv(3));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private long newTerm(String epoch) {
    store.txn(
        Txn.when(
            List.of(), List.of(new Txn.Op.Put(FENCE, epoch.getBytes(StandardCharsets.UTF_8)))));
    return store.currentRevision();
  }

  private static Queue queue(String name) {
    return new Queue(ObjectMeta.named(name), QueueSpec.UNLIMITED, QueueStatus.EMPTY);
  }

  private long stamp() {
    return store
        .get(FencingClient.stampKey(FENCE))
        .map(KeyValue::value)
        .map(v -> Long.parseLong(new String(v, StandardCharsets.UTF_8)))
        .orElse(-1L);
  }

  @Test
  void aFencedWriteRecordsItsTermAndOneOfAnEndedTermChangesNothing() {
    long one = newTerm("1");
    var first = registry.fencedBy(FENCE, one);
    first.create(queue("a"));
    assertThat(stamp()).isEqualTo(one);

    long two = newTerm("2");
    long before = store.currentRevision();
    assertThatThrownBy(() -> first.create(queue("b")))
        .isInstanceOf(ApiException.class)
        .hasMessageStartingWith(FencingClient.TERM_ENDED);
    assertThat(store.currentRevision()).isEqualTo(before);
    assertThat(registry.get(Kinds.QUEUE, "b")).isEmpty();
    assertThat(stamp()).isEqualTo(one);

    registry.fencedBy(FENCE, two).create(queue("c"));
    assertThat(stamp()).isEqualTo(two);
  }

  @Test
  void theNaiveViewRecordsTheTermButLandsAfterItEnded() {
    long one = newTerm("1");
    var first = registry.unfencedBy(FENCE, one);
    newTerm("2");
    first.create(queue("late"));
    assertThat(registry.get(Kinds.QUEUE, "late")).isPresent();
    assertThat(stamp()).isEqualTo(one);
  }

  /**
   * A commit as large as the fenced registry says it takes fits the store with the stamp beside it
   * (etcd's 64 puts: a commit of 64 writes and the stamp was refused as over the limit).
   */
  @Test
  void theStampLeavesRoomInACommit() {
    var limited =
        new dev.quartermaster.store.ForwardingStore(store) {
          @Override
          public int writesPerTxn() {
            return 4;
          }

          @Override
          public dev.quartermaster.store.TxnResult txn(Txn txn) {
            assertThat(txn.onSuccess().size())
                .as("writes in one transaction")
                .isLessThanOrEqualTo(4);
            return delegate.txn(txn);
          }

          @Override
          public void close() {}
        };
    var fenced = new ObjectRegistry(limited, new DeterministicEnv(3)).fencedBy(FENCE, newTerm("1"));
    assertThat(fenced.writesPerCommit()).isEqualTo(3);
    fenced.commit(
        java.util.stream.IntStream.range(0, 3)
            .mapToObj(
                i ->
                    (dev.quartermaster.api.client.Write)
                        new dev.quartermaster.api.client.Write.Create(queue("q" + i)))
            .toList());
    assertThat(registry.list(Kinds.QUEUE).items()).hasSize(3);
  }
}
