package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.allocation.ReservedClaim;
import dev.quartermaster.api.allocation.ReservedMember;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I1 as counters in the store: on a node whose slice says {@code gpu-0} and its MIG slices share
 * counter set {@code gpu-0} (7 compute, 8 memory; the whole GPU takes all, a {@code 1g} slice one
 * of each), no write lets two claims hold the GPU and one of its slices — and the same writes on a
 * node that declares no counters pass, as they always did.
 */
class SharedCountersGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(7);
  ObjectRegistry api;
  final Map<String, ResourceClaim> claims = new HashMap<>();

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, env);
    for (var name : List.of("a-gpu", "b-gpu", "c-gpu")) {
      claims.put(name, api.create(AllocationGuardTest.claim(name)));
    }
  }

  @AfterEach
  void close() {
    store.close();
  }

  static DeviceSliceSpec partitioned(boolean counters) {
    var devices =
        List.of(
            gpu("gpu-0", 7, 8, counters),
            gpu("gpu-0-slice-0", 1, 1, counters),
            gpu("gpu-0-slice-1", 1, 1, counters),
            gpu("gpu-1", 0, 0, false));
    return new DeviceSliceSpec(
        "node-1",
        devices,
        counters
            ? List.of(new CounterSet("gpu-0", Map.of("compute", 7L, "memory", 8L)))
            : List.of());
  }

  private static Device gpu(String name, long compute, long memory, boolean counters) {
    return new Device(
        name,
        "gpu",
        Map.of(),
        Device.Health.Healthy,
        "",
        counters
            ? List.of(new CounterConsumption("gpu-0", Map.of("compute", compute, "memory", memory)))
            : List.of());
  }

  void slice(boolean counters) {
    api.create(new DeviceSlice(ObjectMeta.named("node-1"), partitioned(counters), null));
  }

  DeviceHolder holder(String claim) {
    return new DeviceHolder(claim, claims.get(claim).metadata().uid());
  }

  NodeAllocation record(Map<String, DeviceHolder> add) {
    return AllocationGuardTest.record(api, "node-1", add);
  }

  @Test
  void aRecordGivingTheGpuAndOneOfItsSlicesToTwoClaimsIsRefused() {
    slice(true);
    record(Map.of("gpu-0", holder("a-gpu")));
    long before = store.currentRevision();

    assertThatThrownBy(() -> record(Map.of("gpu-0-slice-0", holder("b-gpu"))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "nodeallocation/node-1: spec.devices: device gpu-0-slice-0 shares counter"
                + " gpu-0/compute: 8 of 7 with device gpu-0, held by claim a-gpu");
    assertThat(store.currentRevision()).as("nothing changed").isEqualTo(before);
  }

  @Test
  void bothInOneWriteAreRefusedToo() {
    slice(true);
    assertThatThrownBy(
            () -> record(Map.of("gpu-0", holder("a-gpu"), "gpu-0-slice-1", holder("b-gpu"))))
        .hasMessageContaining("shares counter gpu-0/compute");
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1")).isEmpty();
  }

  @Test
  void slicesFitBesideEachOtherAndWholeGpusAsBefore() {
    slice(true);
    record(Map.of("gpu-0-slice-0", holder("a-gpu")));
    record(Map.of("gpu-0-slice-1", holder("b-gpu"), "gpu-1", holder("c-gpu")));
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow().spec().devices()).hasSize(3);
  }

  @Test
  void withNoCountersDeclaredTheSameWritesPassAsToday() {
    slice(false);
    record(Map.of("gpu-0", holder("a-gpu")));
    record(Map.of("gpu-0-slice-0", holder("b-gpu")));
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow().spec().devices())
        .containsOnlyKeys("gpu-0", "gpu-0-slice-0");
  }

  @Test
  void aSliceDeclaringCountersTheRecordAlreadyOverConsumesIsRefused() {
    slice(false);
    record(Map.of("gpu-0", holder("a-gpu"), "gpu-0-slice-0", holder("b-gpu")));
    var current = api.get(Kinds.DEVICE_SLICE, "node-1").orElseThrow();

    assertThatThrownBy(
            () -> api.update(new DeviceSlice(current.metadata(), partitioned(true), null)))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("its counters are over-consumed by what nodeallocation/node-1 holds");
  }

  @Test
  void aReservationOfASliceOfAGpuARecordGivesAnotherClaimIsRefused() {
    slice(true);
    record(Map.of("gpu-0", holder("a-gpu")));

    assertThatThrownBy(() -> propose("job", "b-gpu", "gpu-0-slice-0"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "device gpu-0-slice-0 on node node-1 shares counter gpu-0/compute: 8 of 7 with device"
                + " gpu-0, held by claim a-gpu");
  }

  @Test
  void aRecordEntryForTheGpuWhileAReservationHoldsOneOfItsSlicesIsRefused() {
    slice(true);
    propose("job", "b-gpu", "gpu-0-slice-0");

    assertThatThrownBy(() -> record(Map.of("gpu-0", holder("a-gpu"))))
        .hasMessageContaining("with device gpu-0-slice-0, held by claim b-gpu")
        .hasMessageContaining("(reserved for gang job/*)");
    // two slices, two gangs: they fit
    propose("other", "c-gpu", "gpu-0-slice-1");
  }

  void propose(String workload, String claim, String device) {
    var member =
        new ReservedMember(
            claim.replace("-gpu", ""),
            "task-uid-" + claim,
            "node-1",
            List.of(
                new ReservedClaim(
                    claim, holder(claim).uid(), List.of(new AllocatedDevice("gpu", device)))));
    var r =
        new GangReservation(
            workload, "uid-" + workload, "*", 1, ReservationPhase.Proposed, List.of(member));
    var current = api.get(Kinds.GANG_LEDGER, GangLedger.NAME);
    if (current.isEmpty()) {
      api.create(GangLedger.of(GangLedgerSpec.EMPTY.with(r)));
    } else {
      api.update(current.get().withSpec(current.get().spec().with(r)));
    }
  }
}
