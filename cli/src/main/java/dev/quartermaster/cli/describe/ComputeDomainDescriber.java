package dev.quartermaster.cli.describe;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.table.Table;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A compute domain: its size, each member node with its daemon, and the claims that keep it there.
 */
final class ComputeDomainDescriber implements Describer<ComputeDomain> {

  @Override
  public void describe(ComputeDomain domain, DescribeContext context, Description out) {
    var name = domain.metadata().name();
    out.field(
        "Nodes",
        domain.status().readyNodes() + " ready of " + domain.spec().numNodes() + " wanted");
    var claims =
        context.api().list(Kinds.RESOURCE_CLAIM).items().stream()
            .filter(c -> c.spec().computeDomain().map(name::equals).orElse(false))
            .toList();
    var nodes = new java.util.HashMap<String, Node>();
    context.api().list(Kinds.NODE).items().forEach(n -> nodes.put(n.metadata().name(), n));
    var rows =
        domain.status().nodes().stream()
            .map(
                m -> {
                  var daemon =
                      Optional.ofNullable(nodes.get(m.node()))
                          .flatMap(n -> n.status().daemonOf(name));
                  // What keeps the node in the domain: the claims naming it that are allocated
                  // there.
                  var keeping =
                      claims.stream()
                          .filter(
                              c ->
                                  c.status()
                                      .allocation()
                                      .map(a -> a.node().equals(m.node()))
                                      .orElse(false))
                          .map(c -> c.metadata().name())
                          .sorted()
                          .collect(Collectors.joining(","));
                  return List.of(
                      m.node(),
                      m.daemonReady() ? "True" : "False",
                      daemon.map(d -> d.state().name()).orElse("-"),
                      daemon.flatMap(DomainDaemon::pid).map(String::valueOf).orElse("-"),
                      daemon.map(d -> Integer.toString(d.restarts())).orElse("-"),
                      Age.since(m.since(), context.now()),
                      keeping.isEmpty() ? "-" : keeping);
                })
            .toList();
    out.table(
        "Members",
        new Table(List.of("NODE", "READY", "DAEMON", "PID", "RESTARTS", "SINCE", "CLAIMS"), rows));
    var unplaced =
        claims.stream()
            .filter(c -> c.status().allocation().isEmpty())
            .map(c -> c.metadata().name())
            .sorted()
            .toList();
    if (!unplaced.isEmpty()) {
      out.field("Claims Not Placed", String.join(", ", unplaced));
    }
    ConditionsSection.write(domain.status().conditions(), context.now(), out);
  }
}
