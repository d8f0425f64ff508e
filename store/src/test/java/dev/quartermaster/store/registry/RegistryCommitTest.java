package dev.quartermaster.store.registry;

import static dev.quartermaster.store.registry.AllocationGuardTest.allocated;
import static dev.quartermaster.store.registry.AllocationGuardTest.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ObjectRegistry#commit}: several writes as one transaction, each judged by the store's
 * rules against the batch's earlier writes — what lets the allocator write a node's record and its
 * claims together. Each property is also run against {@link #oneAtATime}, the naive commit that
 * applies the writes in turn, to show the test can tell.
 */
class RegistryCommitTest {
  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(3));
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * The naive variant: each write applied alone, in order; a failure leaves the earlier ones
   * applied.
   */
  static List<ApiObject> oneAtATime(ApiClient api, List<Write> writes) {
    var out = new ArrayList<ApiObject>();
    for (var w : writes) {
      out.add(w.applyAlone(api));
    }
    return out;
  }

  static Write record(String node, Map<String, DeviceHolder> devices) {
    return new Write.Create(
        new NodeAllocation(ObjectMeta.named(node), new NodeAllocationSpec(devices), null));
  }

  static DeviceHolder holder(ResourceClaim c) {
    return new DeviceHolder(c.metadata().name(), c.metadata().uid());
  }

  @Test
  void aRecordAndTheClaimsItBacksCommitTogetherAtOneRevision() {
    var a = api.create(claim("a"));
    var b = api.create(claim("b"));
    long before = store.currentRevision();

    var written =
        api.commit(
            List.of(
                record("node-1", Map.of("gpu-0", holder(a), "gpu-1", holder(b))),
                new Write.UpdateStatus(allocated(a, "node-1", "gpu-0")),
                new Write.UpdateStatus(allocated(b, "node-1", "gpu-1"))));

    assertThat(store.currentRevision()).as("one transaction").isEqualTo(before + 1);
    assertThat(written).extracting(o -> o.metadata().revision()).containsOnly(before + 1);
    assertThat(written.get(1)).isEqualTo(api.get(Kinds.RESOURCE_CLAIM, "a").orElseThrow());
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "b").orElseThrow().status().allocation()).isPresent();
  }

  @Test
  void theRulesJudgeEachWriteAgainstTheBatchAsItsEarlierWritesLeaveIt() {
    var a = api.create(claim("a"));
    long before = store.currentRevision();

    // The claim first: no record gives it gpu-0 yet, so it is refused, and so is the whole batch.
    assertThatThrownBy(
            () ->
                api.commit(
                    List.of(
                        new Write.UpdateStatus(allocated(a, "node-1", "gpu-0")),
                        record("node-1", Map.of("gpu-0", holder(a))))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("device gpu-0 on node node-1 is not recorded for this claim");
    assertThat(store.currentRevision()).as("nothing applied").isEqualTo(before);
  }

  @Test
  void aBatchThatHandsOneDeviceToTwoClaimsIsRefusedWhole() {
    var a = api.create(claim("a"));
    var b = api.create(claim("b"));
    long before = store.currentRevision();

    assertThatThrownBy(
            () ->
                api.commit(
                    List.of(
                        record("node-1", Map.of("gpu-0", holder(a))),
                        new Write.UpdateStatus(allocated(a, "node-1", "gpu-0")),
                        new Write.UpdateStatus(allocated(b, "node-1", "gpu-0")))))
        .hasMessageContaining("device gpu-0 on node node-1 is held by claim a");
    assertThat(store.currentRevision()).isEqualTo(before);
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1")).isEmpty();
  }

  @Test
  void oneLostCompareAndSetAppliesNothingOfTheBatch() {
    assertThat(lostCompareAndSet(api::commit)).as("the registry's commit").isEmpty();
  }

  @Test
  void theNaiveCommitLeavesTheWritesBeforeALostCompareAndSetApplied() {
    assertThat(lostCompareAndSet(w -> oneAtATime(api, w))).as("one write at a time").isPresent();
  }

  @Test
  void aBatchSaysWhichWriteFailedOnItsOwnAccountSoABatcherCanRetryTheOthers() {
    var a = api.create(claim("a"));
    var b = api.create(claim("b"));
    var staleB = b;
    b = api.update(b.withMetadata(b.metadata().withLabels(Map.of("touched", "yes"))));
    var fresh = new Write.Update(a.withMetadata(a.metadata().withLabels(Map.of("x", "y"))));

    assertThatThrownBy(
            () ->
                api.commit(
                    List.of(
                        fresh,
                        new Write.Update(
                            staleB.withMetadata(staleB.metadata().withLabels(Map.of("x", "z")))))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.failedWrite()).hasValue(1));
    var invalid = b.withMetadata(b.metadata().withLabels(Map.of("x", "not a label!")));
    assertThatThrownBy(() -> api.commit(List.of(new Write.Update(invalid), fresh)))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.failedWrite()).hasValue(0));
    assertThatThrownBy(() -> api.commit(List.of(new Write.Update(invalid))))
        .as("a single write is its own call: nothing to say which")
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.failedWrite()).isEmpty());
  }

  /**
   * Commits a record, claim a and a stale copy of claim b; the record as stored afterwards, if any.
   */
  private java.util.Optional<NodeAllocation> lostCompareAndSet(
      Function<List<Write>, List<ApiObject>> commit) {
    var a = api.create(claim("a"));
    var b = api.create(claim("b"));
    api.update(b.withMetadata(b.metadata().withLabels(Map.of("touched", "yes")))); // b moves on
    var batch =
        List.of(
            record("node-1", Map.of("gpu-0", holder(a), "gpu-1", holder(b))),
            new Write.UpdateStatus(allocated(a, "node-1", "gpu-0")),
            new Write.UpdateStatus(allocated(b, "node-1", "gpu-1")));

    assertThatThrownBy(() -> commit.apply(batch))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "resourceclaim/b was modified since revision " + b.metadata().revision());
    return api.get(Kinds.NODE_ALLOCATION, "node-1");
  }

  @Test
  void anEmptyBatchAndAnObjectWrittenTwiceAreRefusedNamingTheWrite() {
    var a = api.create(claim("a"));
    long before = store.currentRevision();

    assertThatThrownBy(() -> api.commit(List.of()))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Invalid)).isTrue())
        .hasMessageContaining("writes: must hold at least one write");
    assertThatThrownBy(() -> api.commit(List.of(new Write.Update(a), new Write.UpdateStatus(a))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Invalid)).isTrue())
        .hasMessageContaining("writes[1]: resourceclaim/a is written by writes[0] too");
    assertThat(store.currentRevision()).isEqualTo(before);
  }

  /**
   * A transaction over the store's limit (etcd's operations per transaction) is an answer the
   * caller can match — 413, nothing written — not an internal failure: the allocator tells a gang
   * too large for one transaction so, instead of retrying it for ever.
   */
  @Test
  void aTransactionOverTheStoresLimitIsRefusedAs413AndWritesNothing() {
    var limited =
        new ForwardingStore(store) {
          @Override
          public dev.quartermaster.store.TxnResult txn(dev.quartermaster.store.Txn txn) {
            if (txn.onSuccess().size() > 2) {
              throw new dev.quartermaster.store.StoreLimitException("3 writes, limit 2");
            }
            return delegate.txn(txn);
          }
        };
    var registry = new ObjectRegistry(limited, new DeterministicEnv(3));
    var writes = new ArrayList<Write>();
    for (int i = 0; i < 3; i++) {
      writes.add(
          new Write.Create(
              new Node(ObjectMeta.named("big-" + i), NodeSpec.EMPTY, NodeStatus.EMPTY)));
    }
    assertThatThrownBy(() -> registry.commit(writes))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.is(Reason.PayloadTooLarge)).isTrue())
        .hasMessageContaining("3 writes, limit 2");
    assertThat(api.get(Kinds.NODE, "big-0")).isEmpty();
  }
}
