package dev.quartermaster.sim.world;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.agent.host.NodeHost;
import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The naive MPS agent (NVIDIA's DRA driver starts a control daemon per prepared claim): it keeps no
 * count of its daemons, so every reconcile starts the GPU's daemon afresh, stopping the one its
 * other clients run on. {@link Promises}' M1 must see the restart under a running client.
 */
final class DaemonPerPrepareHost extends ForwardingHost {
  DaemonPerPrepareHost(NodeHost host) {
    super(host);
  }

  @Override
  public HelperProcesses mpsDaemons() {
    var daemons = host.mpsDaemons();
    return new HelperProcesses() {
      @Override
      public Set<String> running() {
        return Set.of(); // it does not look
      }

      @Override
      public void start(String gpu) throws IOException {
        if (daemons.running().contains(gpu)) {
          daemons.stop(gpu);
        }
        daemons.start(gpu);
      }

      @Override
      public void stop(String gpu) throws IOException {
        daemons.stop(gpu);
      }

      @Override
      public List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
        return daemons.daemons(wanted, now);
      }

      @Override
      public DaemonAnswer readiness(String gpu) {
        return daemons.readiness(gpu);
      }
    };
  }
}
