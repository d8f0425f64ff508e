package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.util.List;

/**
 * What the agent asks of a GPU about MIG. Real: {@link NvmlMig}; simulated: {@link SimulatedMig},
 * whose state lives where a restarted agent finds it again (the simulated device root's files, or
 * the simulated node), as a real GPU's instances outlive the agent. Every call looks afresh.
 */
public interface MigControl {

  /** Whether MIG mode is on (the current mode, not a pending one). */
  boolean enabled(int gpu) throws MigRefusedException;

  /** Turns MIG mode on or off; refused ({@code InUse}) while anything uses the GPU. */
  void setEnabled(int gpu, boolean on) throws MigRefusedException;

  /** The instances that exist on {@code gpu} now. */
  List<LiveInstance> instances(MigGpu gpu) throws MigRefusedException;

  /**
   * Creates a GPU instance at {@code placement} and one compute instance filling it; refused
   * ({@code InsufficientResources}) when it overlaps one that exists.
   */
  LiveInstance create(MigGpu gpu, MigPlacement placement) throws MigRefusedException;

  /** Destroys the instance (CI, then GI); refused ({@code InUse}) while a process has it open. */
  void destroy(LiveInstance instance) throws MigRefusedException;

  /**
   * The capability nodes a process on the instance needs, GI's access file then CI's, as they
   * should be on this host ({@code /dev/nvidia-caps/nvidia-cap<minor>}).
   */
  List<VerifiedNode> capabilityNodes(LiveInstance instance);

  /** A node with no MIG at all: every GPU whole, every change refused. */
  MigControl NONE =
      new MigControl() {
        @Override
        public boolean enabled(int gpu) {
          return false;
        }

        @Override
        public void setEnabled(int gpu, boolean on) throws MigRefusedException {
          throw new MigRefusedException(
              MigRefusedException.Refusal.NotSupported, "MIG is not available on this node");
        }

        @Override
        public List<LiveInstance> instances(MigGpu gpu) {
          return List.of();
        }

        @Override
        public LiveInstance create(MigGpu gpu, MigPlacement placement) throws MigRefusedException {
          throw new MigRefusedException(
              MigRefusedException.Refusal.NotSupported, "MIG is not available on this node");
        }

        @Override
        public void destroy(LiveInstance instance) {}

        @Override
        public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
          return List.of();
        }
      };
}
