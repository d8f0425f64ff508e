package dev.quartermaster.agent.tasks;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.DomainDaemon;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The agent's {@link DomainGate}: the daemon here as the agent last checked it, and the domain's
 * {@code Ready} condition as the compute domain controller last wrote it (read live, so a task does
 * not start on a stale cache's word).
 */
public final class ReportedDomainGate implements DomainGate {
  private final ApiClient api;
  private final String node;
  private final Supplier<List<DomainDaemon>> daemons;

  public ReportedDomainGate(ApiClient api, String node, Supplier<List<DomainDaemon>> daemons) {
    this.api = api;
    this.node = node;
    this.daemons = daemons;
  }

  @Override
  public Optional<String> notReadyToStart(String domain) {
    var here = daemonDown(domain);
    if (here.isPresent()) {
      return here;
    }
    var found = api.get(Kinds.COMPUTE_DOMAIN, domain);
    if (found.isEmpty()) {
      return Optional.of("compute domain " + domain + " does not exist");
    }
    var ready = Condition.find(found.get().status().conditions(), DomainConditions.READY);
    if (found.get().metadata().isDeleting()) {
      // It will never be Ready again: say so, and what ends the wait, rather than a plain "not
      // Ready".
      return Optional.of(
          "compute domain "
              + domain
              + " is being deleted, so this task never starts in it ("
              + ready.map(Condition::message).orElse("")
              + "); delete this task's workload, or wait for the deletion"
              + " and make the domain again");
    }
    if (ready.map(Condition::isTrue).orElse(false)) {
      return Optional.empty();
    }
    return Optional.of(
        "compute domain "
            + domain
            + " is not Ready: "
            + ready.map(Condition::message).orElse("its controller has not reported on it yet"));
  }

  @Override
  public Optional<String> daemonDown(String domain) {
    var daemon = daemons.get().stream().filter(d -> d.domain().equals(domain)).findFirst();
    if (daemon.isEmpty()) {
      return Optional.of("its daemon on " + node + " has not been checked yet");
    }
    return daemon
        .filter(d -> !d.ready())
        .map(
            d ->
                "its daemon on "
                    + node
                    + " is "
                    + d.state()
                    + (d.message().isEmpty() ? "" : " (" + d.message() + ")"));
  }
}
