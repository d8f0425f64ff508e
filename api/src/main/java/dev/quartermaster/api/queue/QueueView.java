package dev.quartermaster.api.queue;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.mig.MigCharge;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One queue as its readers see it ({@code qm describe queue}, {@code qm describe workload}): which
 * of its workloads are admitted, which wait, in what order, and why each waits. Pure, from what the
 * caller listed, so both describers say the same.
 *
 * @param queue the queue
 * @param ledger its cohort's ledger (an empty one before the cohort's first admission)
 * @param cohort every queue of its cohort, itself included
 * @param workloads the workloads that name this queue
 * @param priorities priority class name → value
 * @param migCharge device class name → the MIG compute slices one device of it costs ({@link
 *     MigCharge}; a class not named costs none)
 */
public record QueueView(
    Queue queue,
    QuotaLedger ledger,
    List<Queue> cohort,
    List<Workload> workloads,
    Map<String, Integer> priorities,
    Map<String, Integer> migCharge) {
  public QueueView {
    cohort = List.copyOf(cohort);
    workloads = List.copyOf(workloads);
    priorities = Map.copyOf(priorities);
    migCharge = Map.copyOf(migCharge);
  }

  /**
   * The view of {@code queue} out of everything listed: its cohort's queues and ledger, its own
   * workloads.
   */
  public static QueueView of(
      Queue queue,
      List<Queue> queues,
      List<QuotaLedger> ledgers,
      List<Workload> workloads,
      List<PriorityClass> classes) {
    return of(queue, queues, ledgers, workloads, classes, List.of());
  }

  /** As above, with the device classes that set what a MIG slice costs in compute slices. */
  public static QueueView of(
      Queue queue,
      List<Queue> queues,
      List<QuotaLedger> ledgers,
      List<Workload> workloads,
      List<PriorityClass> classes,
      List<DeviceClass> deviceClasses) {
    var cohort = queue.cohort();
    var name = queue.metadata().name();
    return new QueueView(
        queue,
        ledgers.stream()
            .filter(l -> l.metadata().name().equals(cohort))
            .findFirst()
            .orElse(new QuotaLedger(null, null, null)),
        queues.stream().filter(q -> q.cohort().equals(cohort)).toList(),
        workloads.stream().filter(w -> w.spec().queueName().equals(name)).toList(),
        classes.stream()
            .collect(
                Collectors.toMap(
                    p -> p.metadata().name(), p -> p.spec().value(), (a, b) -> a, TreeMap::new)),
        MigCharge.perClass(deviceClasses));
  }

  /**
   * Where {@code w} stands, out of everything listed: it may name a queue or a priority class that
   * does not exist.
   */
  public static Standing standingOf(
      Workload w,
      List<Queue> queues,
      List<QuotaLedger> ledgers,
      List<Workload> workloads,
      List<PriorityClass> classes) {
    return standingOf(w, queues, ledgers, workloads, classes, List.of());
  }

  /** As above, with the device classes that set what a MIG slice costs in compute slices. */
  public static Standing standingOf(
      Workload w,
      List<Queue> queues,
      List<QuotaLedger> ledgers,
      List<Workload> workloads,
      List<PriorityClass> classes,
      List<DeviceClass> deviceClasses) {
    var queue = queues.stream().filter(q -> q.metadata().name().equals(w.spec().queueName()));
    return queue
        .findFirst()
        .map(q -> of(q, queues, ledgers, workloads, classes, deviceClasses).standing(w))
        .orElseGet(
            () ->
                new Standing.Waiting(
                    0, "queue " + w.spec().queueName() + " does not exist; nothing admits it"));
  }

  /** The ledger entry of {@code w} (this very workload: same uid, same queue), if admitted. */
  public Optional<Admitted> admission(Workload w) {
    return Optional.ofNullable(ledger.spec().admitted().get(w.metadata().name()))
        .filter(
            a ->
                a.uid().equals(w.metadata().uid())
                    && a.queue().equals(queue.metadata().name())
                    && w.spec().queueName().equals(a.queue()));
  }

  /** This queue's admitted workloads, by name → entry. */
  public Map<String, Admitted> admitted() {
    var out = new TreeMap<String, Admitted>();
    for (var w : workloads) {
      admission(w).ifPresent(a -> out.put(w.metadata().name(), a));
    }
    return out;
  }

  /** Whether the workload controller says {@code w}'s job is over (its quota released). */
  private static boolean finished(Workload w) {
    return Condition.find(w.status().conditions(), WorkloadConditions.ADMITTED)
        .filter(c -> c.reason().equals(WorkloadConditions.FINISHED))
        .isPresent();
  }

  /** Its workloads not admitted and not being deleted, in the order they are taken. */
  public List<Workload> pending() {
    return workloads.stream()
        .filter(w -> !w.metadata().isDeleting() && !finished(w) && admission(w).isEmpty())
        .sorted(QueueOrder.of(priorities))
        .toList();
  }

  /** What {@code w} asks of its queue's quota ({@link Demand}), MIG compute slices included. */
  public Map<String, Integer> demand(Workload w) {
    return Demand.of(w.spec(), d -> 1, c -> migCharge.getOrDefault(c, 0));
  }

  /** Where {@code w}, one of this queue's workloads, stands. */
  public Standing standing(Workload w) {
    var admitted = admission(w);
    if (admitted.isPresent()) {
      return new Standing.In(queue.cohort(), admitted.get());
    }
    if (w.metadata().isDeleting()) {
      return new Standing.Out("Deleting", "being deleted; nothing admits it");
    }
    if (finished(w)) {
      return new Standing.Out("Finished", "its job is over; its quota went back to the queue");
    }
    var priority = w.spec().priority();
    if (priority.isPresent() && !priorities.containsKey(priority.get())) {
      return new Standing.Waiting(
          0, "priority class " + priority.get() + " does not exist; nothing admits it");
    }
    var order = pending();
    // Those whose priority class does not exist are not taken at all, so they are not ahead.
    int ahead =
        (int)
            order.stream()
                .takeWhile(p -> !p.metadata().name().equals(w.metadata().name()))
                .filter(p -> p.spec().priority().map(priorities::containsKey).orElse(true))
                .count();
    var reasons = new ArrayList<String>();
    Optional.ofNullable(ledger.spec().requeued().get(w.metadata().name()))
        .filter(r -> r.uid().equals(w.metadata().uid()))
        .ifPresent(
            r ->
                reasons.add(
                    "requeued after its eviction ("
                        + r.reason()
                        + (r.count() > 1 ? ", " + r.count() + " in a row" : "")
                        + "): not admitted before "
                        + r.until()
                        + " (a backoff of "
                        + r.delaySeconds()
                        + "s)"));
    var quota = quota();
    var name = queue.metadata().name();
    demand(w)
        .forEach(
            (c, n) ->
                quota
                    .room(name, c)
                    .ifPresent(
                        room -> {
                          if (n > room) {
                            reasons.add(lacking(quota, c, n, room));
                          }
                        }));
    var holding =
        ledger.spec().nominated().keySet().stream()
            .filter(n -> !n.equals(w.metadata().name()))
            .sorted()
            .toList();
    if (reasons.isEmpty()) {
      reasons.add(
          ahead > 0 && queue.spec().ordering() == QueueOrdering.StrictFIFO
              ? "its quota fits; StrictFIFO takes those ahead of it first"
              : !holding.isEmpty()
                  ? "its quota fits beside what is admitted, but the cohort holds quota for "
                      + String.join(", ", holding)
                      + ", which evicted others and waits for them to stop"
                  : "its quota fits; the admission controller has not taken it yet");
    }
    reasons.add(ahead + " ahead of it");
    return new Standing.Waiting(ahead, String.join("; ", reasons));
  }

  /** The cohort's quota as its ledger has it now. */
  public CohortQuota quota() {
    var specs = new TreeMap<String, QueueSpec>();
    cohort.forEach(q -> specs.put(q.metadata().name(), q.spec()));
    specs.put(queue.metadata().name(), queue.spec());
    return CohortQuota.of(specs, ledger.spec().admitted());
  }

  /**
   * {@code needs gpu 4: quota gpu 4/4 used; cohort can lend 2}, or what stands in the way instead:
   * its unused quota lent to others, or the class over the cohort's quota (a quota lowered under
   * what is admitted).
   */
  private String lacking(CohortQuota quota, String deviceClass, int needs, int room) {
    var name = queue.metadata().name();
    int nominal = queue.spec().nominal(deviceClass).orElse(0);
    int used = quota.used(name, deviceClass);
    var head =
        "needs "
            + deviceClass
            + " "
            + needs
            + ": quota "
            + deviceClass
            + " "
            + used
            + "/"
            + nominal
            + " used";
    var over = quota.breach(List.of(deviceClass));
    if (over.isPresent()) {
      return head
          + "; the cohort is over its quota of "
          + deviceClass
          + " ("
          + over.get()
          + "): nothing more of it is admitted until enough of what is admitted finishes";
    }
    int own = Math.max(0, nominal - used);
    int lentOut = Math.max(0, own - room);
    int lend = Math.max(0, room - own);
    var limit = Optional.ofNullable(queue.spec().borrowingLimit().get(deviceClass));
    return head
        + (lentOut > 0 ? " (" + lentOut + " of the rest lent to other queues)" : "")
        + "; cohort can lend "
        + lend
        + limit
            .map(
                l ->
                    " (borrowing limit "
                        + l
                        + ", "
                        + quota.borrowed(name, deviceClass)
                        + " borrowed)")
            .orElse("");
  }
}
