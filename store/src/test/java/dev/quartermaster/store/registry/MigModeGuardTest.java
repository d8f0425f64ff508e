package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A GPU's mode (MIG, time-sliced) changes only while nothing holds it: node-1 has {@code gpu-0} in
 * dynamic MIG mode (an H200's every possible slice) and {@code gpu-1} whole; each row holds a
 * device (or not), changes the spec, and says whether the store takes it — and a refused write
 * changes nothing.
 */
class MigModeGuardTest {
  static final String SLICE =
      MigGeometry.deviceName("gpu-0", MigGeometry.H200_141GB.placements().get(9));

  /** What the row holds before the change, by a live claim (or one deleted since). */
  enum Held {
    NOTHING,
    SLICE_OF_GPU_0,
    WHOLE_GPU_1,
    REPLICA_OF_GPU_1,
    SHARE_OF_GPU_1,
    SLICE_BY_A_DELETED_CLAIM
  }

  record Row(
      String name,
      Held held,
      UnaryOperator<NodeSpec> change,
      Optional<Reason> refused,
      String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Row> rows() {
    var none = Optional.<Reason>empty();
    var conflict = Optional.of(Reason.Conflict);
    var invalid = Optional.of(Reason.Invalid);
    return Stream.of(
        new Row("idle GPU: off", Held.NOTHING, s -> s.withMig("gpu-0", Optional.empty()), none, ""),
        new Row(
            "idle GPU: dynamic to static",
            Held.NOTHING,
            s -> s.withMig("gpu-0", Optional.of(MigMode.Static)),
            none,
            ""),
        new Row(
            "a slice held: off refused",
            Held.SLICE_OF_GPU_0,
            s -> s.withMig("gpu-0", Optional.empty()),
            conflict,
            "node/node-1: spec.mig: the mode of gpu-0 may change only while nothing holds the"
                + " GPU or a part of it (a slice, replica or share); held by claim/a-mig ("
                + SLICE
                + ")"),
        new Row(
            "a slice held: static refused",
            Held.SLICE_OF_GPU_0,
            s -> s.withMig("gpu-0", Optional.of(MigMode.Static)),
            conflict,
            "held by claim/a-mig"),
        new Row(
            "a slice of gpu-0 held: gpu-1 may change",
            Held.SLICE_OF_GPU_0,
            s -> s.withMig("gpu-1", Optional.of(MigMode.Dynamic)),
            none,
            ""),
        new Row(
            "whole gpu-1 held: dynamic refused",
            Held.WHOLE_GPU_1,
            s -> s.withMig("gpu-1", Optional.of(MigMode.Dynamic)),
            conflict,
            "held by claim/a-mig (gpu-1)"),
        new Row(
            "a slice held: cordon keeps the mode",
            Held.SLICE_OF_GPU_0,
            s -> s.withUnschedulable(true),
            none,
            ""),
        new Row(
            "the holder deleted: off",
            Held.SLICE_BY_A_DELETED_CLAIM,
            s -> s.withMig("gpu-0", Optional.empty()),
            none,
            ""),
        new Row(
            "idle gpu-1: time-sliced",
            Held.NOTHING,
            s -> s.withSharing("gpu-1", Optional.of(GpuSharing.timeSliced(4))),
            none,
            ""),
        new Row(
            "whole gpu-1 held: time-sliced refused",
            Held.WHOLE_GPU_1,
            s -> s.withSharing("gpu-1", Optional.of(GpuSharing.timeSliced(4))),
            conflict,
            "node/node-1: spec.sharing: the mode of gpu-1 may change only while nothing holds the"
                + " GPU or a part of it (a slice, replica or share); held by claim/a-mig (gpu-1)"),
        new Row(
            "a replica of gpu-1 held: fewer replicas refused",
            Held.REPLICA_OF_GPU_1,
            s -> s.withSharing("gpu-1", Optional.of(GpuSharing.timeSliced(2))),
            conflict,
            "held by claim/a-mig (gpu-1-ts-3)"),
        new Row(
            "a replica of gpu-1 held: gpu-0's MIG may change",
            Held.REPLICA_OF_GPU_1,
            s -> s.withMig("gpu-0", Optional.empty()),
            none,
            ""),
        new Row(
            "an MPS share of gpu-1 held: off refused",
            Held.SHARE_OF_GPU_1,
            s -> s.withSharing("gpu-1", Optional.empty()),
            conflict,
            "held by claim/a-mig (gpu-1-mps-50pct-20gib-0)"),
        new Row(
            "an MPS share of gpu-1 held: time-sliced refused",
            Held.SHARE_OF_GPU_1,
            s -> s.withSharing("gpu-1", Optional.of(GpuSharing.timeSliced(2))),
            conflict,
            "held by claim/a-mig (gpu-1-mps-50pct-20gib-0)"),
        new Row(
            "MIG and time-sliced on one GPU",
            Held.NOTHING,
            s -> s.withSharing("gpu-0", Optional.of(GpuSharing.timeSliced(4))),
            invalid,
            "spec.sharing.gpu-0: GPU gpu-0 is in MIG mode (spec.mig.gpu-0); a GPU is in one mode"),
        new Row(
            "no such GPU",
            Held.NOTHING,
            s -> s.withMig("gpu-9", Optional.of(MigMode.Dynamic)),
            invalid,
            "spec.mig.gpu-9: node node-1 has no GPU gpu-9 (its GPUs: gpu-0, gpu-1)"));
  }

  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(46));
    api.create(
        new Node(
            ObjectMeta.named("node-1"),
            NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic)),
            NodeStatus.EMPTY));
    var devices = new ArrayList<>(MigGeometry.H200_141GB.devices("gpu-0"));
    devices.add(new Device("gpu-1", "gpu", Map.of(), Device.Health.Healthy, ""));
    api.create(
        new DeviceSlice(
            ObjectMeta.named("node-1"),
            new DeviceSliceSpec(
                "node-1", devices, List.of(MigGeometry.H200_141GB.counterSet("gpu-0"))),
            null));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void aModeChangeIsTakenOnlyWhileNothingHoldsTheGpu(Row row) {
    switch (row.held()) {
      case NOTHING -> {}
      case SLICE_OF_GPU_0 -> AllocationGuardTest.bind(api, "a-mig", "node-1", SLICE);
      case WHOLE_GPU_1 -> AllocationGuardTest.bind(api, "a-mig", "node-1", "gpu-1");
      case REPLICA_OF_GPU_1 -> {
        // gpu-1 time-sliced by 4 while idle, its agent publishing the replicas, one of them held
        var node = api.get(Kinds.NODE, "node-1").orElseThrow();
        api.update(
            new Node(
                node.metadata(),
                node.spec().withSharing("gpu-1", Optional.of(GpuSharing.timeSliced(4))),
                node.status()));
        var slice = api.get(Kinds.DEVICE_SLICE, "node-1").orElseThrow();
        var devices = new ArrayList<>(slice.spec().devices());
        var whole =
            devices.stream().filter(d -> d.name().equals("gpu-1")).findFirst().orElseThrow();
        devices.remove(whole);
        devices.addAll(TimeSlices.replicas(whole, 4));
        api.update(
            new DeviceSlice(
                slice.metadata(),
                new DeviceSliceSpec("node-1", devices, slice.spec().sharedCounters()),
                slice.status()));
        AllocationGuardTest.bind(api, "a-mig", "node-1", "gpu-1-ts-3");
      }
      case SHARE_OF_GPU_1 -> {
        // gpu-1 shared by MPS while idle, its agent publishing gpu-1-mps, a share of it held
        var node = api.get(Kinds.NODE, "node-1").orElseThrow();
        api.update(
            new Node(
                node.metadata(),
                node.spec().withSharing("gpu-1", Optional.of(GpuSharing.mps(4))),
                node.status()));
        var slice = api.get(Kinds.DEVICE_SLICE, "node-1").orElseThrow();
        var devices = new ArrayList<>(slice.spec().devices());
        var whole =
            devices.stream().filter(d -> d.name().equals("gpu-1")).findFirst().orElseThrow();
        devices.remove(whole);
        devices.add(MpsShares.template(whole, 4));
        api.update(
            new DeviceSlice(
                slice.metadata(),
                new DeviceSliceSpec("node-1", devices, slice.spec().sharedCounters()),
                slice.status()));
        AllocationGuardTest.bind(api, "a-mig", "node-1", "gpu-1-mps-50pct-20gib-0");
      }
      case SLICE_BY_A_DELETED_CLAIM -> {
        AllocationGuardTest.bind(api, "a-mig", "node-1", SLICE);
        api.delete(Kinds.RESOURCE_CLAIM, "a-mig");
      }
    }
    var node = api.get(Kinds.NODE, "node-1").orElseThrow();
    var next = new Node(node.metadata(), row.change().apply(node.spec()), node.status());
    if (row.refused().isEmpty()) {
      assertThat(api.update(next).spec()).isEqualTo(next.spec());
      return;
    }
    long before = store.currentRevision();
    assertThatThrownBy(() -> api.update(next))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.is(row.refused().get())).isTrue())
        .hasMessageContaining(row.message());
    assertThat(store.currentRevision()).as("nothing changed").isEqualTo(before);
    assertThat(api.get(Kinds.NODE, "node-1").orElseThrow().spec()).isEqualTo(node.spec());
  }
}
