package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsShares;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I1 for an MPS GPU in the store: the shares recorded on a GPU never sum past its compute, memory
 * or clients, and never sit beside the GPU held whole. The naive allocators these writes stand for
 * judge by device names alone (two shares of different names never clash); the store refuses the
 * share that would over-take the GPU, and writes nothing of it.
 */
class MpsShareGuardTest {
  private static final Device GPU_0 =
      new Device(
          "gpu-0",
          "gpu",
          Map.of("uuid", "GPU-0", "memory", Long.toString(80 * MpsShares.GIB)),
          Device.Health.Healthy,
          "");

  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(47));
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
    api.create(
        new DeviceSlice(
            ObjectMeta.named("node-1"),
            new DeviceSliceSpec("node-1", List.of(MpsShares.template(GPU_0, 3))),
            null));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void sharesPastTheGpusComputeAreRefused() {
    AllocationGuardTest.bind(api, "a", "node-1", "gpu-0-mps-60pct-20gib-0");
    long before = store.currentRevision();
    assertThatThrownBy(
            () -> AllocationGuardTest.bind(api, "b", "node-1", "gpu-0-mps-50pct-20gib-0"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("counter gpu-0-mps/compute-percent: 110 of 100");
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1").orElseThrow().spec().devices().keySet())
        .containsExactly("gpu-0-mps-60pct-20gib-0");
    assertThat(store.currentRevision() - before)
        .as("only the claim's create, nothing of the record")
        .isEqualTo(1);
    AllocationGuardTest.bind(api, "c", "node-1", "gpu-0-mps-40pct-20gib-0"); // exactly 100 %
  }

  @Test
  void sharesPastTheGpusMemoryOrClientsAreRefused() {
    AllocationGuardTest.bind(api, "a", "node-1", "gpu-0-mps-10pct-70gib-0");
    assertThatThrownBy(
            () -> AllocationGuardTest.bind(api, "b", "node-1", "gpu-0-mps-10pct-11gib-0"))
        .hasMessageContaining("counter gpu-0-mps/memory-gib: 81 of 80");
    AllocationGuardTest.bind(api, "c", "node-1", "gpu-0-mps-10pct-1gib-0");
    AllocationGuardTest.bind(api, "d", "node-1", "gpu-0-mps-10pct-1gib-1");
    assertThatThrownBy(() -> AllocationGuardTest.bind(api, "e", "node-1", "gpu-0-mps-10pct-1gib-2"))
        .hasMessageContaining("counter gpu-0-mps/clients: 4 of 3");
  }

  @Test
  void aShareBesideTheGpuHeldWholeIsRefused() {
    AllocationGuardTest.bind(api, "whole", "node-1", "gpu-0");
    assertThatThrownBy(() -> AllocationGuardTest.bind(api, "s", "node-1", "gpu-0-mps-10pct-1gib-0"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("are one GPU (a part and its whole)");
  }
}
