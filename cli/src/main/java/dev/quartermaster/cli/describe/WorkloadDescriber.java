package dev.quartermaster.cli.describe;

import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Standing;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.cli.format.CommandText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** A workload: each group's desired and observed size, each gang's state, and the tasks it owns. */
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
                      Integer.toString(o.placed()),
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
                "PLACED",
                "RUNNING",
                "SUCCEEDED",
                "FAILED",
                "RESTART",
                "COMMAND",
                "CLAIMS"),
            rows));
    admission(workload, context, out);
    gangs(workload, context.now(), out);

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

  /**
   * Whether its queue admitted it (through which queue and cohort, using what, since when) or where
   * it waits and why ({@link dev.quartermaster.api.queue.QueueView}, as {@code describe queue}).
   */
  private static void admission(Workload workload, DescribeContext context, Description out) {
    var standing = QueueLists.standingOf(workload, context);
    out.section(
        "Admission",
        d -> {
          switch (standing) {
            case Standing.In in -> {
              var a = in.admission();
              d.field(
                      "State",
                      a.eviction()
                          .map(
                              e ->
                                  e.reason()
                                      + (e.by().isEmpty() ? "" : " by " + e.by())
                                      + " "
                                      + Age.of(Duration.between(e.at(), context.now()))
                                      + " ago: its tasks are stopping, then it waits in its"
                                      + " queue again")
                          .orElse(
                              "Admitted "
                                  + Age.of(Duration.between(a.at(), context.now()))
                                  + " ago"))
                  .field("Queue", a.queue() + " (cohort " + in.cohort() + ")")
                  .field("Usage", KindTables.counts(a.usage(), "none"))
                  .field("Priority", a.priority())
                  .field(
                      "Start Timeout",
                      workload.spec().startTimeout().toSeconds()
                          + "s: "
                          + (a.started()
                              ? "every task it needs ran; it keeps its quota"
                              : !context
                                      .api()
                                      .get(Kinds.QUEUE, a.queue())
                                      .map(q -> q.spec().limitsAny(a.usage().keySet()))
                                      .orElse(false)
                                  ? "does not apply: queue "
                                      + a.queue()
                                      + " sets no quota on what it uses"
                                  : "unless every task it needs runs by then, its quota goes"
                                      + " back"));
              if (!a.preempted().isEmpty()) {
                d.field(
                    "Evicted For It",
                    a.preempted().size()
                        + " workload(s), which may not evict it back while it is admitted");
              }
            }
            case Standing.Out o ->
                d.field("State", o.state())
                    .field("Queue", workload.spec().queueName())
                    .field("Why", o.why());
            case Standing.Waiting w ->
                d.field("State", "Pending")
                    .field("Queue", workload.spec().queueName())
                    .field("Position", (w.ahead() + 1) + " (" + w.ahead() + " ahead of it)")
                    .field("Why", w.why());
          }
        });
  }

  /**
   * Each gang ({@link WorkloadGangs}: a group's, or the workload's own over every group): where it
   * stands and since when, how many members it places at once, what a member's failure does, where
   * on the topology it may go, and why it waits.
   */
  private static void gangs(Workload workload, Instant now, Description out) {
    var gangs = WorkloadGangs.of(workload.spec());
    if (gangs.isEmpty()) {
      return;
    }
    var lines = WorkloadGangs.statuses(workload.status());
    out.section(
        "Gangs",
        d -> {
          for (var g : gangs) {
            var status = Optional.ofNullable(lines.get(g.name()));
            d.section(
                g.wholeWorkload() ? g.name() + " (every group)" : g.name(),
                s -> {
                  s.field(
                      "State",
                      status
                          .map(
                              st ->
                                  st.state().name()
                                      + st.since()
                                          .map(t -> " for " + Age.of(Duration.between(t, now)))
                                          .orElse(""))
                          .orElse("Unknown (not reported yet)"));
                  s.field("Min Member", minMember(workload, g));
                  s.field("On Member Failure", g.onMemberFailure().name());
                  s.field("Topology", topology(g.topology()));
                  status.ifPresent(
                      st -> {
                        if (!st.reason().isEmpty()) {
                          s.field("Reason", st.reason());
                        }
                        if (!st.message().isEmpty()) {
                          s.field("Message", st.message());
                        }
                      });
                });
          }
        });
  }

  /**
   * {@code 3 of 3 replicas} for a group's gang; {@code 9: launcher 1 of 1, workers 8 of 8 replicas}
   * for the workload's.
   */
  private static String minMember(Workload workload, Gang g) {
    var shares =
        g.shares().stream()
            .map(
                sh ->
                    (g.wholeWorkload() ? sh.group() + " " : "")
                        + sh.members()
                        + " of "
                        + workload.spec().groups().stream()
                            .filter(x -> x.name().equals(sh.group()))
                            .mapToInt(WorkerGroup::replicas)
                            .sum())
            .collect(Collectors.joining(", "));
    return (g.wholeWorkload() ? g.minMember() + ": " : "") + shares + " replicas";
  }

  /** {@code required topology.quartermaster.dev/rack}, {@code anywhere}. */
  private static String topology(GangTopology t) {
    var parts = new ArrayList<String>();
    t.required().ifPresent(k -> parts.add("one " + k + " (required)"));
    t.preferred().ifPresent(k -> parts.add("fewest " + k + " (preferred)"));
    return parts.isEmpty() ? "anywhere" : String.join(", ", parts);
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
