package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.format.ClaimState;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The cluster counted for the scrape: devices by node, class and state, claims and tasks by phase,
 * nodes by condition. Every phase and state is present, zero included, so a series does not vanish
 * (and a rate or alert over it break) when its count drops to nothing.
 *
 * <p>A device is {@code prepared} when the claim allocated it is prepared on its node (as {@code qm
 * get claims} says {@code prepared}), {@code allocated} when a claim holds it otherwise, {@code
 * unhealthy} when its health is anything but Healthy, and {@code free} else.
 */
public record ClusterCensus(
    Map<DeviceGroup, Long> devices,
    Map<ClaimState, Long> claims,
    Map<TaskPhase, Long> tasks,
    Map<NodeCondition, Long> nodes) {

  public ClusterCensus {
    devices = Map.copyOf(devices);
    claims = Map.copyOf(claims);
    tasks = Map.copyOf(tasks);
    nodes = Map.copyOf(nodes);
  }

  public static ClusterCensus of(
      Collection<Node> nodes,
      Collection<DeviceSlice> slices,
      Collection<ResourceClaim> claims,
      Collection<Task> tasks) {
    return new ClusterCensus(
        devices(slices, claims), claimPhases(claims), taskPhases(tasks), conditions(nodes));
  }

  private static Map<DeviceGroup, Long> devices(
      Collection<DeviceSlice> slices, Collection<ResourceClaim> claims) {
    // node → device → whether its holder is prepared there
    Map<String, Map<String, Boolean>> held = new HashMap<>();
    for (var claim : claims) {
      claim
          .status()
          .allocation()
          .ifPresent(
              a -> {
                var prepare = claim.status().prepare().get(a.node());
                boolean prepared =
                    prepare != null && prepare.phase() == PrepareState.Phase.Prepared;
                var onNode = held.computeIfAbsent(a.node(), n -> new HashMap<>());
                a.devices().forEach(d -> onNode.put(d.device(), prepared));
              });
    }
    Map<DeviceGroup, Long> out = new HashMap<>();
    for (var slice : slices) {
      var node = slice.spec().node();
      var onNode = held.getOrDefault(node, Map.of());
      for (var device : slice.spec().devices()) {
        for (var state : DeviceState.values()) {
          out.putIfAbsent(new DeviceGroup(node, device.deviceClass(), state), 0L);
        }
        out.merge(
            new DeviceGroup(node, device.deviceClass(), stateOf(device, onNode.get(device.name()))),
            1L,
            Long::sum);
      }
    }
    return out;
  }

  /**
   * @param prepared whether its holder is prepared; null when no claim holds it
   */
  private static DeviceState stateOf(Device device, Boolean prepared) {
    if (device.health() != Device.Health.Healthy) {
      return DeviceState.UNHEALTHY;
    }
    if (prepared == null) {
      return DeviceState.FREE;
    }
    return prepared ? DeviceState.PREPARED : DeviceState.ALLOCATED;
  }

  private static Map<ClaimState, Long> claimPhases(Collection<ResourceClaim> claims) {
    Map<ClaimState, Long> out = new java.util.EnumMap<>(ClaimState.class);
    for (var state : ClaimState.values()) {
      out.put(state, 0L);
    }
    claims.forEach(c -> out.merge(ClaimState.of(c), 1L, Long::sum));
    return out;
  }

  private static Map<TaskPhase, Long> taskPhases(Collection<Task> tasks) {
    Map<TaskPhase, Long> out = new java.util.EnumMap<>(TaskPhase.class);
    for (var phase : TaskPhase.values()) {
      out.put(phase, 0L);
    }
    tasks.forEach(t -> out.merge(t.status().phase(), 1L, Long::sum));
    return out;
  }

  private static Map<NodeCondition, Long> conditions(Collection<Node> nodes) {
    var types = new TreeSet<String>();
    nodes.forEach(n -> n.status().conditions().forEach(c -> types.add(c.type())));
    Map<NodeCondition, Long> out = new HashMap<>();
    for (var type : types) {
      for (var status : Condition.Status.values()) {
        out.put(new NodeCondition(type, status), 0L);
      }
    }
    nodes.forEach(
        n ->
            n.status()
                .conditions()
                .forEach(c -> out.merge(new NodeCondition(c.type(), c.status()), 1L, Long::sum)));
    return out;
  }
}
