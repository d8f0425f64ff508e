package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.health.HealthFileSource;
import dev.quartermaster.agent.health.HealthPolicy;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.nvml.NvmlDiscovery;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.nvml.NvmlXidMonitor;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * This node's GPUs and their health, as the DeviceSlice publishes them.
 *
 * <p>Discovery: NVML when the device root is the host's {@code /} and {@code libnvidia-ml.so.1}
 * loads, else the {@code /proc/driver/nvidia} + {@code /dev} files under the root (which is how a
 * simulated root is read). Health: NVML XID events with NVML, else the root's {@code health/}
 * files; if monitoring cannot start every GPU is Unknown with the reason (fail closed: the
 * allocator places nothing on an Unknown device). {@code changed} is called whenever what {@link
 * #devices()} returns may have changed (a rescan found other GPUs, or a health changed), so that
 * the slice is republished.
 */
public final class NodeDevices implements AutoCloseable {
  /** How long an NVML event wait blocks before it looks whether it was closed. */
  private static final Duration NVML_WAIT = Duration.ofSeconds(5);

  private final GpuDiscovery discovery;
  private final HealthTracker tracker;
  private final Runnable changed;
  private final AtomicReference<Inventory> inventory;
  private AutoCloseable healthSource = () -> {};

  private NodeDevices(GpuDiscovery discovery, HealthTracker tracker, Runnable changed) {
    this.discovery = discovery;
    this.tracker = tracker;
    this.changed = changed;
    this.inventory = new AtomicReference<>(Inventory.of(discovery.discover()));
  }

  /**
   * Discovers the GPUs under {@code root} and starts their health monitoring.
   *
   * @param nvml loads NVML ({@code NvmlLibrary::load} in production)
   * @param healthPeriod how often a simulated root's health files are read
   */
  public static NodeDevices start(Env env, DeviceRoot root, Supplier<NvmlLoad> nvml, HealthPolicy policy,
      Duration healthPeriod, Runnable changed) {
    Objects.requireNonNull(changed, "changed");
    boolean useNvml = root.isHost() && nvmlLoads(nvml);
    GpuDiscovery discovery = useNvml ? new NvmlDiscovery(nvml, root.path()) : new ProcGpuDiscovery(root.path());
    var holder = new AtomicReference<NodeDevices>();
    var tracker = new HealthTracker(env, policy, (device, health) -> {
      var self = holder.get();
      if (self != null) {
        self.changed.run();
      }
    });
    var devices = new NodeDevices(discovery, tracker, changed);
    holder.set(devices);
    var names = devices.inventory().gpus().stream().map(DiscoveredGpu::name).toList();
    if (useNvml) {
      var byUuid = new LinkedHashMap<String, String>();
      devices.inventory().gpus().forEach(g -> byUuid.put(g.uuid(), g.name()));
      devices.healthSource = NvmlXidMonitor.start(env, nvml, byUuid, NVML_WAIT, tracker);
    } else {
      var files = new HealthFileSource(env, root.path(), names, healthPeriod, tracker);
      files.start();
      devices.healthSource = files::stop;
    }
    return devices;
  }

  private static boolean nvmlLoads(Supplier<NvmlLoad> nvml) {
    return switch (nvml.get()) {
      case NvmlLoad.Loaded l -> {
        l.library().close(); // only asked whether it loads; discovery loads it per look
        yield true;
      }
      case NvmlLoad.Unavailable u -> false;
    };
  }

  /** What the last discovery found. */
  public Inventory inventory() {
    return inventory.get();
  }

  /** Discovers again now; tells the listener when the GPUs differ from the last look. */
  public Inventory rescan() {
    var next = Inventory.of(discovery.discover());
    var previous = inventory.getAndSet(next);
    if (!previous.equals(next)) {
      changed.run();
    }
    return next;
  }

  /** The GPUs as published in the node's DeviceSlice, each with its health now. */
  public List<Device> devices() {
    return inventory().gpus().stream().map(g -> tracker.health(g.name()).applyTo(g.toDevice())).toList();
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
