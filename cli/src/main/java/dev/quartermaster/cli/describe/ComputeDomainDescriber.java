package dev.quartermaster.cli.describe;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.cli.format.Age;
import dev.quartermaster.cli.table.Table;
import java.util.List;

/** A compute domain: its size, and each member node with its daemon's readiness. */
final class ComputeDomainDescriber implements Describer<ComputeDomain> {

  @Override
  public void describe(ComputeDomain domain, DescribeContext context, Description out) {
    var wanted = domain.spec().numNodes();
    out.field("Nodes Wanted", wanted == 0 ? "as many as its claims need" : Integer.toString(wanted));
    var rows = domain.status().nodes().stream()
        .map(m -> List.of(m.node(), m.daemonReady() ? "True" : "False", Age.since(m.since(), context.now())))
        .toList();
    out.table("Members", new Table(List.of("NODE", "DAEMON READY", "SINCE"), rows));
    ConditionsSection.write(domain.status().conditions(), context.now(), out);
  }
}
