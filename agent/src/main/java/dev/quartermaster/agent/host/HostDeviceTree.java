package dev.quartermaster.agent.host;

import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.NodeStat;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.health.HealthFileSource;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.nvml.NvmlDiscovery;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.agent.nvml.NvmlXidMonitor;
import dev.quartermaster.core.env.Env;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The devices under a device root: NVML when the root is the host's {@code /} and {@code
 * libnvidia-ml.so.1} loads (health from XID events), else the {@code /proc/driver/nvidia} + {@code
 * /dev} files under the root, which is how a simulated root is read (health from its {@code
 * health/} files, polled every {@code healthPeriod}).
 */
public final class HostDeviceTree implements DeviceTree {
  /** How long an NVML event wait blocks before it looks whether it was closed. */
  private static final Duration NVML_WAIT = Duration.ofSeconds(5);

  private final DeviceRoot root;
  private final Supplier<NvmlLoad> nvml;
  private final Duration healthPeriod;
  private final boolean useNvml;
  private final ControlNodeCheck check;

  public HostDeviceTree(DeviceRoot root, Supplier<NvmlLoad> nvml, Duration healthPeriod) {
    this.root = root;
    this.nvml = nvml;
    this.healthPeriod = healthPeriod;
    this.useNvml = root.isHost() && nvmlLoads(nvml);
    this.check = new ControlNodeCheck(root.path());
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

  @Override
  public GpuDiscovery discovery() {
    return useNvml ? new NvmlDiscovery(nvml, root.path()) : new ProcGpuDiscovery(root.path());
  }

  @Override
  public ControlNodeStatus checkControlNodes() {
    return check.check();
  }

  @Override
  public Optional<String> checkGpuNode(DiscoveredGpu gpu) {
    var path = gpu.node().hostPath();
    return switch (NodeStat.of(path)) {
      case NodeStat.Missing m -> Optional.of("missing " + path);
      case NodeStat.CharDevice c when !c.number().equals(gpu.node().number()) ->
          Optional.of(path + " is a character device " + c.number() + ", expected " + gpu.node().number());
      case NodeStat.CharDevice c -> Optional.empty();
      // A simulated root built without mknod has regular files standing in; discovery accepted them.
      case NodeStat.NotCharDevice n when !root.isHost() && n.kind().equals("a regular file") -> Optional.empty();
      case NodeStat.NotCharDevice n -> Optional.of(path + " is " + n.kind() + ", expected a character device");
    };
  }

  @Override
  public Optional<Path> watchDir() {
    return Optional.of(check.devDir());
  }

  @Override
  public AutoCloseable startHealth(Env env, List<DiscoveredGpu> gpus, HealthTracker tracker) {
    if (useNvml) {
      var byUuid = new LinkedHashMap<String, String>();
      gpus.forEach(g -> byUuid.put(g.uuid(), g.name()));
      return NvmlXidMonitor.start(env, nvml, byUuid, NVML_WAIT, tracker);
    }
    var files = new HealthFileSource(env, root.path(), gpus.stream().map(DiscoveredGpu::name).toList(), healthPeriod,
        tracker);
    files.start();
    return files::stop;
  }
}
