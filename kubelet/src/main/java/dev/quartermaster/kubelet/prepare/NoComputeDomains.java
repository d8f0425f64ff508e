package dev.quartermaster.kubelet.prepare;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.agent.effects.DomainMembership;
import dev.quartermaster.agent.effects.HelperProcesses;
import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The kubelet plugin's compute-domain side effects, for now: none. A Kubernetes claim does not name
 * a compute domain yet (that will come from its opaque device configuration), so no prepare asks
 * for one and the effects reconciler always wants the empty set; anything else is refused loudly
 * rather than half done.
 */
final class NoComputeDomains implements HelperProcesses, DomainMembership {
  private static final String NOT_YET = "compute domains are not served by the kubelet plugin yet";

  @Override
  public Set<String> running() {
    return Set.of();
  }

  @Override
  public void start(String domain) throws IOException {
    throw new IOException(NOT_YET + " (asked for " + domain + ")");
  }

  @Override
  public void stop(String domain) {
    // nothing runs
  }

  @Override
  public List<DomainDaemon> daemons(Set<String> wanted, Instant now) {
    return List.of();
  }

  @Override
  public DaemonAnswer readiness(String domain) {
    return new DaemonAnswer.Silent(NOT_YET);
  }

  @Override
  public void publish(Set<String> domains) {
    if (!domains.isEmpty()) {
      throw new IllegalStateException(NOT_YET + " (asked for " + domains + ")");
    }
  }
}
