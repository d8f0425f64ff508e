package dev.quartermaster.sim;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Publishes a small world (device class {@code gpu}, ready nodes with GPUs) through any registry.
 */
record SimClusterOn(ObjectRegistry api) {
  void world(int nodes, int gpusEach) {
    api.create(
        new DeviceClass(
            ObjectMeta.named("gpu"),
            new DeviceClassSpec("gpu", List.of()),
            DeviceClassStatus.EMPTY));
    for (int n = 0; n < nodes; n++) {
      var name = "node-" + n;
      var conditions =
          List.of(
              new Condition("AgentReady", Condition.Status.True, "Heartbeat", "", Optional.empty()),
              new Condition(
                  "DevicesReady", Condition.Status.True, "AllPresent", "", Optional.empty()));
      api.create(
          new Node(
              ObjectMeta.named(name),
              NodeSpec.EMPTY,
              new NodeStatus(conditions, Optional.empty(), "b", "", List.of())));
      var devices = new ArrayList<Device>();
      for (int i = 0; i < gpusEach; i++) {
        devices.add(
            new Device("gpu-" + i, "gpu", Map.of("model", "H100"), Device.Health.Healthy, ""));
      }
      api.create(
          new DeviceSlice(
              ObjectMeta.named(name), new DeviceSliceSpec(name, devices), DeviceSliceStatus.EMPTY));
    }
  }
}
