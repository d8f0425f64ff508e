package dev.quartermaster.cli.describe;

import dev.quartermaster.api.format.Age;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrder;
import dev.quartermaster.api.queue.Standing;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.api.table.Table;
import dev.quartermaster.api.workload.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A queue: its cohort, per device class its quota, what it uses, borrows and lends and the room
 * left; the workloads it admitted, and those that wait, in the order they are taken, each with why.
 */
final class QueueDescriber implements Describer<Queue> {

  @Override
  public void describe(Queue queue, DescribeContext context, Description out) {
    var view = QueueLists.viewOf(queue, context);
    var spec = queue.spec();
    var name = queue.metadata().name();
    var quota = view.quota();
    out.field("Cohort", queue.cohort())
        .field("Weight", spec.weight())
        .field("Ordering", spec.ordering().name())
        .field("Over Quota", overQuota(name, spec, quota));

    var classes = new TreeSet<String>(spec.quota().keySet());
    view.admitted().values().forEach(a -> classes.addAll(a.usage().keySet()));
    var rows = new ArrayList<List<String>>();
    for (var c : classes) {
      rows.add(
          List.of(
              c,
              spec.nominal(c).isPresent() ? Integer.toString(spec.nominal(c).getAsInt()) : "none",
              Integer.toString(quota.used(name, c)),
              Integer.toString(quota.borrowed(name, c)),
              Integer.toString(quota.lent(name, c)),
              quota.room(name, c).isPresent()
                  ? Integer.toString(quota.room(name, c).getAsInt())
                  : "unlimited",
              limit(spec.borrowingLimit(), c),
              limit(spec.lendingLimit(), c)));
    }
    out.table(
        "Quota",
        new Table(
            List.of(
                "CLASS",
                "QUOTA",
                "USED",
                "BORROWED",
                "LENT",
                "ROOM",
                "BORROWING LIMIT",
                "LENDING LIMIT"),
            rows));

    var admitted =
        view.admitted().entrySet().stream()
            .map(
                e ->
                    List.of(
                        e.getKey(),
                        KindTables.counts(e.getValue().usage(), "none"),
                        Integer.toString(e.getValue().priority()),
                        Age.of(Duration.between(e.getValue().at(), context.now()))))
            .toList();
    out.table("Admitted", new Table(List.of("NAME", "USAGE", "PRIORITY", "ADMITTED"), admitted));

    var pending = new ArrayList<List<String>>();
    int position = 1;
    for (var w : view.pending()) {
      var why =
          switch (view.standing(w)) {
            case Standing.Waiting waiting -> waiting.why();
            case Standing.Out gone -> gone.why();
            case Standing.In _ -> "admitted";
          };
      pending.add(
          List.of(
              Integer.toString(position++),
              w.metadata().name(),
              KindTables.counts(view.demand(w), "none"),
              priority(w, view.priorities()),
              Age.since(w.metadata().createdAt(), context.now()),
              why));
    }
    out.table(
        "Pending", new Table(List.of("#", "NAME", "USAGE", "PRIORITY", "WAITING", "WHY"), pending));
  }

  /**
   * Its {@code overQuota} policy, and what it does now: {@code Evict: gpu: 4 used, may hold 2; its
   * workloads are evicted until it is within}.
   */
  private static String overQuota(
      String name, dev.quartermaster.api.queue.QueueSpec spec, CohortQuota quota) {
    var over = new ArrayList<String>();
    for (var c : new TreeSet<>(spec.quota().keySet())) {
      int excess = quota.excess(name, c);
      if (excess > 0) {
        over.add(
            c + ": " + quota.used(name, c) + " used, may hold " + (quota.used(name, c) - excess));
      }
    }
    if (over.isEmpty()) {
      return spec.overQuota().name() + ": within what it may hold";
    }
    return spec.overQuota().name()
        + ": "
        + String.join("; ", over)
        + switch (spec.overQuota()) {
          case Evict ->
              "; its workloads are evicted, lowest priority and newest first, until it is within";
          case Wait -> "; nothing more of it is admitted until enough finishes";
        };
  }

  /** {@code urgent (100)}, or {@code 0} for a workload that names no class. */
  static String priority(Workload w, Map<String, Integer> classes) {
    return w.spec()
        .priority()
        .map(p -> p + " (" + QueueOrder.priorityOf(w, classes) + ")")
        .orElse("0");
  }

  private static String limit(Map<String, Integer> limits, String deviceClass) {
    return Optional.ofNullable(limits.get(deviceClass)).map(String::valueOf).orElse("none");
  }
}
