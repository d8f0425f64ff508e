package dev.quartermaster.cli.describe;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.format.ClaimState;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.api.workload.DeviceCheck;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.cli.format.CommandText;
import dev.quartermaster.cli.format.Times;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A task: what it runs, where it is in its life and why, the device check, and the state of each
 * claim it needs.
 */
final class TaskDescriber implements Describer<Task> {

  @Override
  public void describe(Task task, DescribeContext context, Description out) {
    var spec = task.spec();
    out.section(
        "Spec",
        d ->
            d.field("Node", spec.node().orElse(""))
                .field(
                    "Attempt",
                    spec.attempt() == 0
                        ? "0 (first run)"
                        : spec.attempt() + " (restarts of this slot in a row)")
                .field("Runtime", spec.runtime())
                .field("Image", spec.image().orElse(""))
                .field("Command", CommandText.of(spec.command()))
                .values(
                    "Env",
                    new TreeMap<>(spec.env())
                        .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList())
                .field(
                    "Volumes",
                    String.join(
                        ", ",
                        spec.volumes().stream()
                            .map(u -> u.name() + (u.readOnly() ? " (read-only)" : ""))
                            .toList())));
    var s = task.status();
    var now = context.now();
    out.section(
        "Status",
        d ->
            d.field("Phase", s.phase().name())
                .field("Reason", s.reason())
                .field("Message", s.message())
                .field("Node", s.node().orElse(""))
                .field("Started", Times.at(s.startedAt(), now))
                .field("Finished", Times.at(s.finishedAt(), now))
                .field("Exit Code", s.exitCode().map(String::valueOf).orElse(""))
                .field(
                    "Device Check",
                    s.deviceCheck().map(TaskDescriber::deviceCheck).orElse("<not run yet>")));

    // A finished task's own claims were released (deleted); a claim of its name now is its
    // successor's.
    boolean released = !TaskTransitions.usesClaims(s.phase());
    var rows =
        spec.claims().stream()
            .map(
                name ->
                    context
                        .api()
                        .get(Kinds.RESOURCE_CLAIM, name)
                        .filter(c -> !released || ownedBy(c, task))
                        .map(
                            c ->
                                List.of(
                                    name,
                                    ClaimState.of(c).toString(),
                                    c.status()
                                        .allocation()
                                        .map(Allocation::node)
                                        .orElse(Table.NONE),
                                    ConditionsSection.orNone(
                                        c.status()
                                            .allocation()
                                            .map(
                                                a ->
                                                    a.devices().stream()
                                                        .map(Allocation.AllocatedDevice::device)
                                                        .collect(Collectors.joining(",")))
                                            .orElse("")),
                                    ConditionsSection.orNone(ClaimState.reason(c))))
                        .orElse(
                            released
                                ? List.of(
                                    name,
                                    "released",
                                    Table.NONE,
                                    Table.NONE,
                                    "the task has " + s.phase() + ": its devices went back")
                                : List.of(name, "not found", Table.NONE, Table.NONE, Table.NONE)))
            .toList();
    out.table("Claims", new Table(List.of("CLAIM", "STATE", "NODE", "DEVICES", "REASON"), rows));
    var shares =
        spec.claims().stream()
            .flatMap(n -> context.api().get(Kinds.RESOURCE_CLAIM, n).stream())
            .filter(c -> !released || ownedBy(c, task))
            .flatMap(c -> c.status().allocation().stream())
            .flatMap(a -> a.devices().stream())
            .flatMap(d -> MpsShares.parse(d.device()).stream())
            .toList();
    if (!shares.isEmpty()) {
      out.section(
          "MPS Shares",
          d -> {
            for (var share : shares) {
              d.values(share.name(), share.limits());
            }
            d.field("Isolation", MpsShares.ONE_FAULT_DOMAIN);
          });
    }
    ConditionsSection.write(s.conditions(), now, out);
  }

  /** Whether {@code c} was made for this incarnation of {@code task}. */
  private static boolean ownedBy(ResourceClaim c, Task task) {
    return c.metadata().owner().map(o -> o.uid().equals(task.metadata().uid())).orElse(true);
  }

  private static String deviceCheck(DeviceCheck check) {
    if (check.passed()) {
      return "passed (" + check.opened().size() + " device nodes opened)";
    }
    return "failed: " + check.failure().orElse("no reason given");
  }
}
