package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.timeslice.TimeSlices;
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
import java.util.ArrayList;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I1 for a time-sliced GPU in the store: its replicas go one to a claim each, and never beside the
 * whole GPU held by another claim — whichever of the two the node's slice shows now. The naive
 * agents these writes stand for publish replicas while the whole GPU is held, or the whole GPU
 * while a replica is held; the store refuses the second claim either way.
 */
class TimeSlicedGuardTest {
  private static final Device GPU_0 =
      new Device("gpu-0", "gpu", Map.of("uuid", "GPU-0"), Device.Health.Healthy, "");
  private static final Device GPU_1 =
      new Device("gpu-1", "gpu", Map.of("uuid", "GPU-1"), Device.Health.Healthy, "");

  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(47));
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void publish(boolean timeSliced) {
    var devices = new ArrayList<Device>();
    if (timeSliced) {
      devices.addAll(TimeSlices.replicas(GPU_0, 4));
    } else {
      devices.add(GPU_0);
    }
    devices.add(GPU_1);
    var spec = new DeviceSliceSpec("node-1", devices);
    var current = api.get(Kinds.DEVICE_SLICE, "node-1");
    if (current.isEmpty()) {
      api.create(new DeviceSlice(ObjectMeta.named("node-1"), spec, null));
    } else {
      api.update(new DeviceSlice(current.get().metadata(), spec, current.get().status()));
    }
  }

  @Test
  void replicasGoOneToAClaimEach() {
    publish(true);
    AllocationGuardTest.bind(api, "a", "node-1", "gpu-0-ts-0");
    AllocationGuardTest.bind(api, "b", "node-1", "gpu-0-ts-1");
    assertThatThrownBy(() -> AllocationGuardTest.bind(api, "c", "node-1", "gpu-0-ts-1"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("gpu-0-ts-1");
  }

  @Test
  void aReplicaPublishedWhileTheWholeGpuIsHeldIsRefusedToAnotherClaim() {
    publish(false);
    AllocationGuardTest.bind(api, "whole", "node-1", "gpu-0");
    publish(true); // a naive agent: replicas while the whole GPU is held
    long before = store.currentRevision();
    assertThatThrownBy(() -> AllocationGuardTest.bind(api, "turn", "node-1", "gpu-0-ts-2"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining(
            "device gpu-0-ts-2 and device gpu-0 are one GPU (a part and its whole); gpu-0 is held"
                + " by");
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow().spec().devices().keySet())
        .containsExactly("gpu-0");
    assertThat(store.currentRevision() - before)
        .as("only the claim's create, nothing of the record")
        .isEqualTo(1);
  }

  @Test
  void theWholeGpuPublishedWhileAReplicaIsHeldIsRefusedToAnotherClaim() {
    publish(true);
    AllocationGuardTest.bind(api, "turn", "node-1", "gpu-0-ts-3");
    publish(false); // a naive agent: the whole GPU again while a replica is held
    assertThatThrownBy(() -> AllocationGuardTest.bind(api, "whole", "node-1", "gpu-0"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("gpu-0-ts-3 and device gpu-0 are one GPU");
    // the other GPU is no part of it
    AllocationGuardTest.bind(api, "other", "node-1", "gpu-1");
  }
}
