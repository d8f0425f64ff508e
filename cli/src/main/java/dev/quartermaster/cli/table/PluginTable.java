package dev.quartermaster.cli.table;

import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.table.Column;
import dev.quartermaster.api.table.Table;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code qm get plugins}: one row per CSI plugin instance across nodes, as each node's agent found
 * and probed it ({@code NodeStatus.plugins}). Plugins are no kind of their own, so this table is
 * built from nodes. ENDPOINT gives way to the probe's MESSAGE when the instance is not healthy,
 * because then the why is what a person needs.
 */
public final class PluginTable {
  /** One instance and the node it was found on. */
  public record Row(String node, PluginInstance plugin) {}

  private PluginTable() {}

  public static List<Row> rows(List<Node> nodes) {
    return nodes.stream()
        .flatMap(n -> n.status().plugins().stream().map(p -> new Row(n.metadata().name(), p)))
        .sorted(Comparator.comparing((Row r) -> r.plugin().name()).thenComparing(Row::node))
        .toList();
  }

  public static Table of(List<Node> nodes, boolean wide) {
    var columns =
        new java.util.ArrayList<>(
            List.of(
                new Column<Row>("NAME", r -> r.plugin().name()),
                new Column<Row>("NODE", Row::node),
                new Column<Row>(
                    "ROLES",
                    r ->
                        r.plugin().roles().stream()
                            .map(Enum::name)
                            .sorted()
                            .collect(Collectors.joining(","))),
                new Column<Row>("VERSION", r -> r.plugin().version()),
                new Column<Row>("HEALTHY", r -> r.plugin().healthy() ? "yes" : "no"),
                new Column<Row>(
                    "ENDPOINT",
                    r ->
                        r.plugin().healthy() || r.plugin().message().isEmpty()
                            ? r.plugin().endpoint()
                            : r.plugin().message())));
    if (wide) {
      columns.add(new Column<>("CSI-NODE-ID", r -> r.plugin().csiNodeId()));
    }
    var rows =
        rows(nodes).stream().map(r -> columns.stream().map(c -> c.cellOf(r)).toList()).toList();
    return new Table(columns.stream().map(Column::header).toList(), rows);
  }
}
