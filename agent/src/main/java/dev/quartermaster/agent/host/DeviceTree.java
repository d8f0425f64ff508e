package dev.quartermaster.agent.host;

import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.core.env.Env;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The node's devices as the agent reads them: how its GPUs are discovered, the control nodes as
 * they are <em>now</em> (every call looks afresh — a look taken once at start-up is how NVIDIA's
 * plugin lost {@code nvidia-uvm}), and where GPU health comes from. Real: {@link HostDeviceTree}
 * (NVML or {@code /proc} + {@code /dev} under a device root); the simulation has one in memory.
 */
public interface DeviceTree {

  GpuDiscovery discovery();

  /**
   * Looks for the node's IMEX channels now ({@link ImexChannels#scan}); a tree that has none to
   * offer answers {@link ImexChannels#NONE}.
   */
  default ImexChannels channels() {
    return ImexChannels.NONE;
  }

  /** How MIG is asked of this tree's GPUs; none unless the tree can. */
  default dev.quartermaster.agent.mig.MigControl mig() {
    return dev.quartermaster.agent.mig.MigControl.NONE;
  }

  /** Checks the control nodes now. */
  ControlNodeStatus checkControlNodes();

  /**
   * Whether a device node discovery saw (a GPU's own) is there now, with the number discovery saw;
   * empty if so, else the problem, naming the path.
   */
  Optional<NodeProblem> checkNode(VerifiedNode node);

  /**
   * A directory whose changes are worth a re-check at once, besides the periodic rescan; none in a
   * simulation.
   */
  Optional<Path> watchDir();

  /**
   * Starts reporting the health of {@code gpus} to {@code tracker} until the returned handle is
   * closed.
   */
  AutoCloseable startHealth(Env env, List<DiscoveredGpu> gpus, HealthTracker tracker);
}
