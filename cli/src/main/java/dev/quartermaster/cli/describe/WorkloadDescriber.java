package dev.quartermaster.cli.describe;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.cli.format.CommandText;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A workload: each group's desired and observed size, and the tasks it owns. */
final class WorkloadDescriber implements Describer<Workload> {

  @Override
  public void describe(Workload workload, DescribeContext context, Description out) {
    var spec = workload.spec();
    var status = workload.status();
    out.field("Compute Domain", spec.computeDomain().orElse(""))
        .field(
            "Observed Generation",
            status.observedGeneration()
                + " (spec generation "
                + workload.metadata().generation()
                + ")");
    Map<String, GroupStatus> observed =
        status.groups().stream().collect(Collectors.toMap(GroupStatus::name, g -> g, (a, b) -> b));
    var rows =
        spec.groups().stream()
            .map(
                g -> {
                  var o =
                      observed.getOrDefault(
                          g.name(), new GroupStatus(g.name(), g.replicas(), 0, 0, 0, 0));
                  return List.of(
                      g.name(),
                      Integer.toString(g.replicas()),
                      Integer.toString(o.live()),
                      Integer.toString(o.running()),
                      Integer.toString(o.succeeded()),
                      Integer.toString(o.failed()),
                      g.restartPolicy().name(),
                      CommandText.of(g.template().command()),
                      ConditionsSection.orNone(claims(g.claimTemplates())));
                })
            .toList();
    out.table(
        "Groups",
        new Table(
            List.of(
                "GROUP",
                "REPLICAS",
                "LIVE",
                "RUNNING",
                "SUCCEEDED",
                "FAILED",
                "RESTART",
                "COMMAND",
                "CLAIMS"),
            rows));

    var name = workload.metadata().name();
    var tasks =
        context.api().list(Kinds.TASK).items().stream()
            .filter(
                t ->
                    t.metadata()
                        .owner()
                        .filter(
                            o -> o.kind().equals(Kinds.WORKLOAD.name()) && o.name().equals(name))
                        .isPresent())
            .sorted(Comparator.comparing((Task t) -> t.metadata().name()))
            .map(
                t ->
                    List.of(
                        t.metadata().name(),
                        t.status().phase().name(),
                        t.status().node().or(() -> t.spec().node()).orElse(Table.NONE),
                        ConditionsSection.orNone(t.status().reason())))
            .toList();
    out.table("Tasks", new Table(List.of("NAME", "PHASE", "NODE", "REASON"), tasks));
    ConditionsSection.write(status.conditions(), context.now(), out);
  }

  /** {@code gpu: 1 x a100-80g} per claim template. */
  private static String claims(List<ClaimTemplate> templates) {
    return templates.stream()
        .map(
            t ->
                t.name()
                    + ": "
                    + t.spec().requests().stream()
                        .map(r -> r.count() + " x " + r.deviceClassName())
                        .collect(Collectors.joining(" + ")))
        .collect(Collectors.joining("; "));
  }
}
