package dev.quartermaster.sim.world;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.GpuDiscovery;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.host.DeviceTree;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.mig.ForwardingMig;
import dev.quartermaster.agent.mig.LiveInstance;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigGpu;
import dev.quartermaster.agent.mig.MigRefusedException;
import dev.quartermaster.agent.mig.PreparedSlice;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The naive MIG agents the simulation must catch (issue 46 item 8). */
final class MigNaiveVariants {
  private MigNaiveVariants() {}

  /**
   * An agent that destroys only the instances it made itself in this life (it keeps them in memory,
   * and does not reconcile the driver's instances with its ledger after a restart): an instance
   * made just before a crash, whose claim goes away meanwhile, leaks for ever.
   */
  static Variant forgetsInstancesAtRestart() {
    return Variant.host(
        host ->
            new ForwardingHost(host) {
              private final Set<String> mine = new HashSet<>();

              @Override
              public DeviceTree devices() {
                return new ForwardingTree(host.devices()) {
                  @Override
                  public MigControl mig() {
                    return forgetful(tree.mig(), mine);
                  }
                };
              }
            });
  }

  private static MigControl forgetful(MigControl inner, Set<String> mine) {
    return new ForwardingMig(inner) {
      @Override
      public LiveInstance create(MigGpu gpu, MigPlacement placement) throws MigRefusedException {
        var made = inner.create(gpu, placement);
        mine.add(made.uuid());
        return made;
      }

      @Override
      public void destroy(LiveInstance instance) throws MigRefusedException {
        if (mine.remove(instance.uuid())) {
          inner.destroy(instance);
        }
      }
    };
  }

  /**
   * An agent whose CDI spec gives a slice only its parent's node, not its capability nodes (the
   * seed-2 incident one level down): the process starts, and CUDA finds no MIG device.
   */
  static Variant skipsCapabilityNodes() {
    return Variant.host(
        host ->
            new ForwardingHost(host) {
              @Override
              public ClaimSpecs claimSpecs() {
                var specs = host.claimSpecs();
                return new ClaimSpecs() {
                  @Override
                  public List<String> write(
                      ClaimRef claim,
                      List<DiscoveredGpu> gpus,
                      List<DiscoveredChannel> channels,
                      List<PreparedSlice> slices,
                      List<VerifiedNode> control)
                      throws IOException {
                    var bare =
                        slices.stream()
                            .map(s -> new PreparedSlice(s.slice(), s.instance(), List.of()))
                            .toList();
                    return specs.write(claim, gpus, channels, bare, control);
                  }

                  @Override
                  public List<String> write(
                      ClaimRef claim,
                      List<DiscoveredGpu> gpus,
                      List<DiscoveredChannel> channels,
                      List<VerifiedNode> control)
                      throws IOException {
                    return specs.write(claim, gpus, channels, control);
                  }

                  @Override
                  public void remove(String uid) throws IOException {
                    specs.remove(uid);
                  }

                  @Override
                  public Set<String> claimUids() throws IOException {
                    return specs.claimUids();
                  }
                };
              }
            });
  }

  /** Every part of the tree is {@code tree}'s; a naive view overrides the one part it changes. */
  private abstract static class ForwardingTree implements DeviceTree {
    final DeviceTree tree;

    ForwardingTree(DeviceTree tree) {
      this.tree = tree;
    }

    @Override
    public GpuDiscovery discovery() {
      return tree.discovery();
    }

    @Override
    public ImexChannels channels() {
      return tree.channels();
    }

    @Override
    public MigControl mig() {
      return tree.mig();
    }

    @Override
    public ControlNodeStatus checkControlNodes() {
      return tree.checkControlNodes();
    }

    @Override
    public Optional<NodeProblem> checkNode(VerifiedNode node) {
      return tree.checkNode(node);
    }

    @Override
    public Optional<Path> watchDir() {
      return tree.watchDir();
    }

    @Override
    public AutoCloseable startHealth(Env env, List<DiscoveredGpu> gpus, HealthTracker tracker) {
      return tree.startHealth(env, gpus, tracker);
    }
  }
}
