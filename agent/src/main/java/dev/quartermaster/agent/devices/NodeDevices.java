package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.host.DeviceTree;
import dev.quartermaster.agent.mig.MigOffer;
import dev.quartermaster.agent.mig.NodeMig;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.core.env.Env;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * This node's GPUs and their health, as the DeviceSlice publishes them.
 *
 * <p>Discovery and the health source are the {@link DeviceTree}'s (NVML and XID events on a GPU
 * host, {@code /proc} + {@code /dev} and health files under a simulated root, memory in the
 * simulation); if monitoring cannot start every GPU is Unknown with the reason (fail closed: the
 * allocator places nothing on an Unknown device). {@code changed} is called whenever what {@link
 * #devices()} returns may have changed (a rescan found other GPUs, or a health changed), so that
 * the slice is republished.
 */
public final class NodeDevices implements AutoCloseable {
  private final GpuDiscovery discovery;
  private final Supplier<ImexChannels> channels;
  private final HealthTracker tracker;
  private final Runnable changed;
  private final AtomicReference<Inventory> inventory;
  private AutoCloseable healthSource = () -> {};
  private final NodeOffer offer;

  private NodeDevices(
      GpuDiscovery discovery,
      Supplier<ImexChannels> channels,
      HealthTracker tracker,
      Runnable changed) {
    this.discovery = discovery;
    this.channels = channels;
    this.tracker = tracker;
    this.changed = changed;
    this.offer = new NodeOffer(tracker);
    this.inventory = new AtomicReference<>(look());
  }

  private Inventory look() {
    return Inventory.of(discovery.discover(), channels.get());
  }

  /** Discovers the GPUs of {@code tree} and starts their health monitoring. */
  public static NodeDevices start(Env env, DeviceTree tree, HealthPolicy policy, Runnable changed) {
    Objects.requireNonNull(changed, "changed");
    var holder = new AtomicReference<NodeDevices>();
    var tracker =
        new HealthTracker(
            env,
            policy,
            (device, health) -> {
              var self = holder.get();
              if (self != null) {
                self.changed.run();
              }
            });
    var devices = new NodeDevices(tree.discovery(), tree::channels, tracker, changed);
    holder.set(devices);
    devices.healthSource = tree.startHealth(env, devices.inventory().gpus(), tracker);
    return devices;
  }

  /** What the last discovery found. */
  public Inventory inventory() {
    return inventory.get();
  }

  /** Discovers again now; tells the listener when the GPUs differ from the last look. */
  public Inventory rescan() {
    var next = look();
    var previous = inventory.getAndSet(next);
    if (!previous.equals(next)) {
      changed.run();
    }
    return next;
  }

  /**
   * The GPUs as published in the node's DeviceSlice, each with its health now, then the IMEX
   * channels.
   */
  public List<Device> devices() {
    var found = inventory();
    return Stream.concat(
            found.gpus().stream().map(g -> tracker.health(g.name()).applyTo(g.toDevice())),
            found.channels().channels().stream().map(DiscoveredChannel::toDevice))
        .toList();
  }

  /**
   * The operator's wish for shared GPUs from now on ({@code NodeSpec.sharing}), as last read; until
   * told, a GPU offers what it offered before.
   */
  public void useSharing(java.util.Map<String, GpuSharing> wish) {
    offer.useSharing(wish);
  }

  /** Publishes GPUs by their MIG mode through {@code next} from now on ({@link MigOffer}). */
  public void useMig(NodeMig next) {
    offer.useMig(next);
  }

  /**
   * What the node offers, {@code held} being the devices its ledger holds ({@link NodeOffer}), with
   * each GPU's health now.
   */
  public NodeOffer.Offered offered(Set<String> held) {
    return offer.offered(inventory(), held);
  }

  public HealthTracker health() {
    return tracker;
  }

  @Override
  public void close() {
    try {
      healthSource.close();
    } catch (Exception e) {
      // stopping a poll or an event loop does not fail in a way worth reporting at shutdown
    }
  }
}
