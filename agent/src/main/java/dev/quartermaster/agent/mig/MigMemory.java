package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.nio.file.Path;
import java.util.List;

/**
 * A simulated driver's MIG state in memory, for a node that lives longer than its agents (the
 * whole-cluster simulation's node, a test's): host paths under {@code devDir}, which exist nowhere.
 */
public final class MigMemory implements SimulatedMig.Storage {
  /** The major {@code nvidia-caps} has in the simulated {@code /proc/devices}. */
  public static final long CAPS_MAJOR = 511;

  private static final long NVIDIA_MAJOR = 195;
  private final Path devDir;
  private volatile MigTable table;

  public MigMemory(String node, Path devDir) {
    this.devDir = devDir;
    this.table = MigTable.empty(node);
  }

  public MigTable table() {
    return table;
  }

  @Override
  public MigTable load() {
    return table;
  }

  @Override
  public void save(MigTable previous, MigTable next) {
    table = next;
  }

  @Override
  public VerifiedNode gpuNode(int gpu) {
    return new VerifiedNode(
        "/dev/nvidia" + gpu, devDir.resolve("nvidia" + gpu), new DeviceNumber(NVIDIA_MAJOR, gpu));
  }

  @Override
  public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
    return List.of(cap(instance.giCapMinor()), cap(instance.ciCapMinor()));
  }

  private VerifiedNode cap(int minor) {
    return new VerifiedNode(
        MigCapabilities.containerPath(minor),
        devDir.resolve("nvidia-caps").resolve(MigCapabilities.fileName(minor)),
        new DeviceNumber(CAPS_MAJOR, minor));
  }
}
