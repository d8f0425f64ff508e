package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I1 in the store: whoever writes, no device is held by two live claims (issue 8, hole 7). */
class AllocationGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(7);
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, env);
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
  }

  @AfterEach
  void close() {
    store.close();
  }

  static ResourceClaim claim(String name) {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty());
    return new ResourceClaim(ObjectMeta.named(name), spec, ResourceClaimStatus.EMPTY);
  }

  static ResourceClaim allocated(ResourceClaim c, String node, String device) {
    return c.withStatus(
        c.status()
            .withAllocation(new Allocation(node, List.of(new AllocatedDevice("gpu", device)))));
  }

  /** What the allocator does: record the device for the claim, then bind the claim. */
  static ResourceClaim bind(ObjectRegistry api, String name, String node, String device) {
    var c = api.create(claim(name));
    record(api, node, Map.of(device, new DeviceHolder(name, c.metadata().uid())));
    return api.updateStatus(allocated(c, node, device));
  }

  static NodeAllocation record(ObjectRegistry api, String node, Map<String, DeviceHolder> add) {
    var current = api.get(Kinds.NODE_ALLOCATION, node);
    if (current.isEmpty()) {
      return api.create(
          new NodeAllocation(ObjectMeta.named(node), new NodeAllocationSpec(add), null));
    }
    return api.update(current.get().withSpec(current.get().spec().with(add)));
  }

  @Test
  void aClaimBoundThroughTheRecordIsAccepted() {
    var bound = bind(api, "train-0-gpu", "node-1", "gpu-0");

    assertThat(bound.status().allocation()).isPresent();
    // Later status writes that keep the allocation (the agent's prepare state) pass too.
    assertThat(api.updateStatus(bound.withStatus(bound.status())).status().allocation())
        .isPresent();
  }

  @Test
  void aClaimStatusNamingADeviceHeldByAnotherClaimIsRefusedNamingTheHolder() {
    var holder = bind(api, "train-0-gpu", "node-1", "gpu-0");
    var other = api.create(claim("train-5-gpu"));
    long before = store.currentRevision();

    assertThatThrownBy(() -> api.updateStatus(allocated(other, "node-1", "gpu-0")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "device gpu-0 on node node-1 is held by claim train-0-gpu (uid "
                + holder.metadata().uid()
                + ")");
    assertThat(store.currentRevision()).as("nothing changed").isEqualTo(before);
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "train-5-gpu").orElseThrow().status().allocation())
        .isEmpty();
  }

  @Test
  void anAllocatedClaimMovedOntoAnotherClaimsDeviceIsRefused() {
    var first = bind(api, "train-0-gpu", "node-1", "gpu-0");
    var second = bind(api, "train-1-gpu", "node-1", "gpu-1");

    assertThatThrownBy(() -> api.updateStatus(allocated(second, "node-1", "gpu-0")))
        .hasMessageContaining(
            "device gpu-0 on node node-1 is held by claim train-0-gpu (uid "
                + first.metadata().uid()
                + ")");
    // A spec/metadata update never writes the status: the allocation stays where the record says.
    var updated = api.update(allocated(second, "node-1", "gpu-0"));
    assertThat(updated.status().allocation().orElseThrow().devices())
        .extracting(AllocatedDevice::device)
        .containsExactly("gpu-1");
  }

  @Test
  void aClaimStatusNamingADeviceNobodyRecordedIsRefused() {
    var c = api.create(claim("train-0-gpu"));

    assertThatThrownBy(() -> api.updateStatus(allocated(c, "node-1", "gpu-3")))
        .hasMessageContaining(
            "device gpu-3 on node node-1 is not recorded for this claim in nodeallocation/node-1");
  }

  @Test
  void aClaimCreatedWithAnAllocationIsRefusedNamingTheField() {
    assertThatThrownBy(() -> api.create(allocated(claim("sneaky"), "node-1", "gpu-0")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Invalid)).isTrue())
        .hasMessageContaining("status.allocation: must be empty when a claim is created");
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "sneaky")).isEmpty();
  }

  @Test
  void aRecordWriteThatWipesALiveEntryIsRefusedAndOneOfAGoneClaimIsAccepted() {
    var live = bind(api, "train-0-gpu", "node-1", "gpu-0");
    bind(api, "train-1-gpu", "node-1", "gpu-1");
    api.delete(Kinds.RESOURCE_CLAIM, "train-1-gpu");
    var record = api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow();

    assertThatThrownBy(() -> api.update(record.withSpec(NodeAllocationSpec.EMPTY)))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "nodeallocation/node-1: spec.devices: device gpu-0 is held by claim train-0-gpu (uid "
                + live.metadata().uid()
                + ")");
    assertThatThrownBy(
            () ->
                api.update(
                    record.withSpec(
                        record.spec().with(Map.of("gpu-0", new DeviceHolder("x", "uid-x"))))))
        .as("handing the device to someone else is a change too")
        .hasMessageContaining("held by claim train-0-gpu");

    var cleaned = api.update(record.withSpec(record.spec().without(java.util.Set.of("gpu-1"))));
    assertThat(cleaned.spec().devices()).containsOnlyKeys("gpu-0");
  }

  @Test
  void aRecordDeleteWithALiveEntryIsRefused() {
    bind(api, "train-0-gpu", "node-1", "gpu-0");

    assertThatThrownBy(() -> api.delete(Kinds.NODE_ALLOCATION, "node-1"))
        .hasMessageContaining("held by claim train-0-gpu");
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1")).isPresent();
  }

  @Test
  void anEntryOfAPendingClaimMayBeTakenBackAndThenTheClaimCannotBindIt() {
    var c = api.create(claim("train-0-gpu"));
    var record =
        record(api, "node-1", Map.of("gpu-0", new DeviceHolder("train-0-gpu", c.metadata().uid())));
    api.update(record.withSpec(NodeAllocationSpec.EMPTY));

    assertThatThrownBy(() -> api.updateStatus(allocated(c, "node-1", "gpu-0")))
        .hasMessageContaining("not recorded");
  }

  @Test
  void deletingANodeWhoseDevicesAreHeldIsRefusedNamingTheHolders() {
    var live = bind(api, "train-0-gpu", "node-1", "gpu-0");

    assertThatThrownBy(() -> api.delete(Kinds.NODE, "node-1"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "node/node-1 cannot be deleted while live claims hold its devices: gpu-0 by claim train-0-gpu (uid "
                + live.metadata().uid()
                + ")");
    assertThat(api.get(Kinds.NODE, "node-1")).isPresent();
  }

  @Test
  void aNodeDeletedAndReCreatedKeepsItsRecord() {
    var c = api.create(claim("train-0-gpu"));
    record(api, "node-1", Map.of("gpu-0", new DeviceHolder("train-0-gpu", c.metadata().uid())));
    api.delete(Kinds.NODE, "node-1"); // allowed: the claim is not bound yet
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));

    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow().spec().holder("gpu-0"))
        .contains(new DeviceHolder("train-0-gpu", c.metadata().uid()));
    var other = api.create(claim("train-5-gpu"));
    assertThatThrownBy(() -> api.updateStatus(allocated(other, "node-1", "gpu-0")))
        .hasMessageContaining("held by claim train-0-gpu");
  }

  @Test
  void aRecordWipeRacingABindIsDecidedOnTheNewState() {
    var racing = new InterleavingStore(store);
    var guarded = new ObjectRegistry(racing, env);
    var c = guarded.create(claim("train-0-gpu"));
    var record =
        record(
            guarded,
            "node-1",
            Map.of("gpu-0", new DeviceHolder("train-0-gpu", c.metadata().uid())));
    // Between the bind's check and its transaction, someone takes the entry back: the transaction
    // fails on the record's revision and the check, run again, refuses.
    racing.beforeNextTxn(() -> api.update(record.withSpec(NodeAllocationSpec.EMPTY)));

    assertThatThrownBy(() -> guarded.updateStatus(allocated(c, "node-1", "gpu-0")))
        .hasMessageContaining("not recorded");
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "train-0-gpu").orElseThrow().status().allocation())
        .isEmpty();
  }

  /** The naive variant: without the guard the same writes leave gpu-0 held by two live claims. */
  @Test
  void withoutTheGuardTheStoreHoldsADeviceForTwoClaims() {
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    bind(naive, "train-0-gpu", "node-1", "gpu-0");
    var other = naive.create(claim("train-5-gpu"));

    naive.updateStatus(allocated(other, "node-1", "gpu-0"));

    var holders =
        naive.list(Kinds.RESOURCE_CLAIM).items().stream()
            .filter(
                x ->
                    x.status()
                        .allocation()
                        .map(a -> a.devices().getFirst().device().equals("gpu-0"))
                        .orElse(false))
            .map(x -> x.metadata().name())
            .toList();
    assertThat(holders).containsExactlyInAnyOrder("train-0-gpu", "train-5-gpu");
  }
}
