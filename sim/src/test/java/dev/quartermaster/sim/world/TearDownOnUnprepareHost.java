package dev.quartermaster.sim.world;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.agent.ledger.ClaimRef;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Seed 1's naive agent, as NVIDIA's driver was: every unprepare tears the node's compute-domain
 * daemons down (it "leaves the domain"), whatever other claims on the node still need them. The
 * real agent then starts them again, since its ledger still wants them — a restart under running
 * workers, which {@link DomainPromises} must see.
 */
final class TearDownOnUnprepareHost extends ForwardingHost {
  TearDownOnUnprepareHost(NodeHost host) {
    super(host);
  }

  @Override
  public ClaimSpecs claimSpecs() {
    var specs = host.claimSpecs();
    return new ClaimSpecs() {
      @Override
      public List<String> write(
          ClaimRef claim,
          List<DiscoveredGpu> gpus,
          List<DiscoveredChannel> channels,
          List<VerifiedNode> controlNodes)
          throws IOException {
        return specs.write(claim, gpus, channels, controlNodes);
      }

      @Override
      public void remove(String uid) throws IOException {
        specs.remove(uid);
        for (var domain : host.helpers().running()) {
          host.helpers()
              .stop(domain); // the naive part: the node leaves every domain on each unprepare
        }
      }

      @Override
      public Set<String> claimUids() throws IOException {
        return specs.claimUids();
      }
    };
  }
}
