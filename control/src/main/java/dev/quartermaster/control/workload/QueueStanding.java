package dev.quartermaster.control.workload;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.Requeue;
import dev.quartermaster.api.workload.JobEnd;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.Admissions;
import dev.quartermaster.control.cluster.Informers;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Where a workload stands with its queue, as the caches show it: what {@link AdmissionCondition}
 * explains.
 *
 * @param admitted its entry in its cohort's ledger (this very workload's)
 * @param nomination the victims it chose and waits for, if it preempts
 * @param requeue the backoff it waits out after an eviction
 * @param finished whether its job is over; asked only when nothing above decides (it reads every
 *     group's tasks)
 * @param queueExists whether its queue exists
 * @param priorityClassExists whether its priority class, if it names one, exists
 */
record QueueStanding(
    Optional<Admitted> admitted,
    Optional<Nomination> nomination,
    Optional<Requeue> requeue,
    BooleanSupplier finished,
    boolean queueExists,
    boolean priorityClassExists) {

  /** {@code w}'s standing from the caches; {@code tasksOf} a group's name gives its tasks. */
  static QueueStanding read(Informers informers, Workload w, Function<String, List<Task>> tasksOf) {
    var ledger =
        Admissions.cohortOf(informers, w).flatMap(c -> informers.quotaLedgers().cache().get(c));
    var name = w.metadata().name();
    var uid = w.metadata().uid();
    return new QueueStanding(
        Admissions.of(informers, w),
        ledger.map(l -> l.spec().nominated().get(name)).filter(n -> n.uid().equals(uid)),
        ledger.map(l -> l.spec().requeued().get(name)).filter(r -> r.uid().equals(uid)),
        () -> JobEnd.reached(w, tasksOf),
        informers.queues().cache().get(w.spec().queueName()).isPresent(),
        w.spec()
            .priority()
            .map(p -> informers.priorityClasses().cache().get(p).isPresent())
            .orElse(true));
  }
}
