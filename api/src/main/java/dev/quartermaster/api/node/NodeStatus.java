package dev.quartermaster.api.node;

import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the node's agent reports.
 *
 * @param conditions {@code AgentReady}, {@code DevicesReady} (with the exact reason, e.g. "missing
 *     /dev/nvidia-uvm")
 * @param heartbeat the agent's last heartbeat
 * @param bootId the kernel boot id; a change means nothing prepared survived
 * @param computeDomains the compute domains this node is a member of, derived from its ledger
 * @param plugins the CSI plugins its agent found and probed
 * @param domainDaemons the daemon of each compute domain the node is a member of (or is joining)
 * @param logs where its agent serves task output, if it does
 */
public record NodeStatus(
    List<Condition> conditions,
    Optional<Instant> heartbeat,
    String bootId,
    String agentVersion,
    List<String> computeDomains,
    List<PluginInstance> plugins,
    List<DomainDaemon> domainDaemons,
    Optional<LogEndpoint> logs) {
  public static final NodeStatus EMPTY =
      new NodeStatus(
          List.of(), Optional.empty(), "", "", List.of(), List.of(), List.of(), Optional.empty());

  public NodeStatus {
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    heartbeat = heartbeat == null ? Optional.empty() : heartbeat;
    bootId = bootId == null ? "" : bootId;
    agentVersion = agentVersion == null ? "" : agentVersion;
    computeDomains = computeDomains == null ? List.of() : List.copyOf(computeDomains);
    plugins = plugins == null ? List.of() : List.copyOf(plugins);
    domainDaemons = domainDaemons == null ? List.of() : List.copyOf(domainDaemons);
    logs = logs == null ? Optional.empty() : logs;
  }

  public NodeStatus(
      List<Condition> conditions,
      Optional<Instant> heartbeat,
      String bootId,
      String agentVersion,
      List<String> computeDomains,
      List<PluginInstance> plugins,
      List<DomainDaemon> domainDaemons) {
    this(
        conditions,
        heartbeat,
        bootId,
        agentVersion,
        computeDomains,
        plugins,
        domainDaemons,
        Optional.empty());
  }

  public NodeStatus(
      List<Condition> conditions,
      Optional<Instant> heartbeat,
      String bootId,
      String agentVersion,
      List<String> computeDomains,
      List<PluginInstance> plugins) {
    this(conditions, heartbeat, bootId, agentVersion, computeDomains, plugins, List.of());
  }

  public NodeStatus(
      List<Condition> conditions,
      Optional<Instant> heartbeat,
      String bootId,
      String agentVersion,
      List<String> computeDomains) {
    this(conditions, heartbeat, bootId, agentVersion, computeDomains, List.of());
  }

  public NodeStatus withConditions(List<Condition> c) {
    return new NodeStatus(
        c, heartbeat, bootId, agentVersion, computeDomains, plugins, domainDaemons, logs);
  }

  public NodeStatus withPlugins(List<PluginInstance> p) {
    return new NodeStatus(
        conditions, heartbeat, bootId, agentVersion, computeDomains, p, domainDaemons, logs);
  }

  public NodeStatus withDomainDaemons(List<DomainDaemon> d) {
    return new NodeStatus(
        conditions, heartbeat, bootId, agentVersion, computeDomains, plugins, d, logs);
  }

  public NodeStatus withHeartbeat(Optional<Instant> h) {
    return new NodeStatus(
        conditions, h, bootId, agentVersion, computeDomains, plugins, domainDaemons, logs);
  }

  public NodeStatus withLogs(Optional<LogEndpoint> l) {
    return new NodeStatus(
        conditions, heartbeat, bootId, agentVersion, computeDomains, plugins, domainDaemons, l);
  }

  /** The daemon of {@code domain} here, if the agent reports one. */
  public Optional<DomainDaemon> daemonOf(String domain) {
    return domainDaemons.stream().filter(d -> d.domain().equals(domain)).findFirst();
  }
}
