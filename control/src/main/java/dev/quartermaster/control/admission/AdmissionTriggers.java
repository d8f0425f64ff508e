package dev.quartermaster.control.admission;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.informer.EventHandler;
import java.time.Duration;
import java.util.Optional;

/**
 * What brings a cohort's admission decision back: a queue's spec, a workload's spec or deletion, a
 * change of the cohort's ledger (not one the controller wrote that only marked starts: {@link
 * SettledWrites}), a task that ends or goes (its workload's admission shrinks or is released, or a
 * finished job is not over any more), a workload's last task running (its start, marked with
 * others' a moment later), a workload saying it is complete, a priority class, compute domain or
 * device class. Each but a start is a change of the cohort ({@link CohortChanges}): a pass that
 * only a start brought marks starts and decides nothing else.
 */
final class AdmissionTriggers {
  /**
   * How long a started workload's mark waits at least to share its cohort's pass with others': at
   * most one pass a second for marks, however many workloads start (a cohort of 1,000 workloads
   * decided once per start took half of the control plane's CPU at 10,000 nodes).
   */
  static final Duration STARTED_MARKS = Duration.ofSeconds(1);

  /**
   * What each entry of its cohort's ledger adds to a mark's wait: a pass that marks reads and
   * writes the whole ledger (about 10 µs of CPU an entry), so the marks of a cohort cost about a
   * thousandth of a core whatever its size. At 1,000 entries a mark waits 10 s; a start timeout is
   * minutes, and a pass on any other change marks every start it finds at once.
   */
  static final Duration STARTED_MARKS_PER_ENTRY = Duration.ofMillis(10);

  /** The longest a mark waits, however large its cohort's ledger. */
  static final Duration STARTED_MARKS_MOST = Duration.ofSeconds(30);

  private final Informers informers;
  private final ControlLoop loop;
  private final SettledWrites settled;
  private final CohortChanges changes;

  private AdmissionTriggers(
      Informers informers, ControlLoop loop, SettledWrites settled, CohortChanges changes) {
    this.informers = informers;
    this.loop = loop;
    this.settled = settled;
    this.changes = changes;
  }

  static void register(
      Informers informers, ControlLoop loop, SettledWrites settled, CohortChanges changes) {
    new AdmissionTriggers(informers, loop, settled, changes).register();
  }

  private void register() {
    informers
        .queues()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Queue q) {
                changed(q.cohort());
              }

              @Override
              public void onUpdate(Queue old, Queue q) {
                if (!old.spec().equals(q.spec())) {
                  changed(old.cohort());
                  changed(q.cohort());
                }
              }

              @Override
              public void onDelete(Queue q) {
                changed(q.cohort());
              }
            });
    informers
        .workloads()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Workload w) {
                enqueueCohortOf(w);
              }

              @Override
              public void onUpdate(Workload old, Workload w) {
                // Its status only as far as a decision reads it: whether it said it is complete
                // (an evicted workload's job is over only then).
                if (old.metadata().generation() != w.metadata().generation()
                    || old.metadata().isDeleting() != w.metadata().isDeleting()
                    || WorkloadFacts.saidComplete(old) != WorkloadFacts.saidComplete(w)) {
                  enqueueCohortOf(old);
                  enqueueCohortOf(w);
                }
              }

              @Override
              public void onDelete(Workload w) {
                enqueueCohortOf(w);
              }
            });
    informers
        .quotaLedgers()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(QuotaLedger l) {
                changed(l.metadata().name());
              }

              @Override
              public void onUpdate(QuotaLedger old, QuotaLedger l) {
                if (settled.brought(l)) {
                  changed(l.metadata().name());
                }
              }

              @Override
              public void onDelete(QuotaLedger l) {
                changed(l.metadata().name());
              }
            });
    // A scaled-down workload's admission shrinks as its surplus tasks finish or go.
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Task t) {}

              @Override
              public void onUpdate(Task old, Task t) {
                if (!old.status().phase().isFinished() && t.status().phase().isFinished()) {
                  ended(t);
                } else if (old.status().phase() != TaskPhase.Running
                    && t.status().phase() == TaskPhase.Running) {
                  running(t);
                }
              }

              @Override
              public void onDelete(Task t) {
                ended(t);
                undone(t);
              }
            });
    informers.priorityClasses().addHandler(EventHandler.onAnyChange(p -> allChanged()));
    // A compute domain's spec sets the IMEX channels each of its tasks takes (Demand); its status
    // moves with every placement and changes nothing a decision reads.
    informers
        .computeDomains()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ComputeDomain d) {
                allChanged();
              }

              @Override
              public void onUpdate(ComputeDomain old, ComputeDomain d) {
                if (!old.spec().equals(d.spec())) {
                  allChanged();
                }
              }

              @Override
              public void onDelete(ComputeDomain d) {
                allChanged();
              }
            });
    // A device class sets what a MIG slice of it costs in compute slices (MigCharge).
    informers.deviceClasses().addHandler(EventHandler.onAnyChange(c -> allChanged()));
  }

  /**
   * A task ended or went: its workload's admission may shrink (a scale-down) or be released (the
   * job is over).
   */
  private void ended(Task t) {
    workloadOf(t)
        .filter(w -> Admissions.of(informers, w).isPresent())
        .ifPresent(this::enqueueCohortOf);
  }

  /** The cached workload a task belongs to, by its label. */
  private Optional<Workload> workloadOf(Task t) {
    return Optional.ofNullable(t.metadata().labels().get(Labels.WORKLOAD))
        .flatMap(owner -> informers.workloads().cache().get(owner));
  }

  /**
   * A task is gone: a finished one of a job that is over (its admission released) makes the job not
   * over any more (an operator deleted a result), and the workload waits for admission again
   * without any change to its cohort's ledger to bring it up (simulation seed 202 waited 20 min).
   */
  private void undone(Task t) {
    workloadOf(t)
        .filter(w -> !w.metadata().isDeleting() && Admissions.of(informers, w).isEmpty())
        .ifPresent(this::enqueueCohortOf);
  }

  /**
   * A task runs: its workload's admission has started if this was the last task it waited for (its
   * start timeout is over). The other tasks' starts change nothing a decision reads: a workload of
   * 10,000 tasks decides its cohort again once, not 10,000 times (and the timeout's recheck looks
   * again whatever this misses). The mark waits {@link #marksWait} for company: it only ends a
   * start timeout (minutes), and every workload of the cohort that starts meanwhile is marked in
   * the same pass and ledger write, instead of a pass over the whole cohort for each.
   */
  private void running(Task t) {
    workloadOf(t)
        .filter(
            w ->
                Admissions.of(informers, w)
                    .filter(a -> !a.started())
                    .filter(a -> StartTimeouts.missing(w, a, informers::taskCounts).isEmpty())
                    .isPresent())
        .ifPresent(
            w -> {
              var cohort = Admissions.cohortOf(informers, w).orElse(w.spec().queueName());
              int entries =
                  informers
                      .quotaLedgers()
                      .cache()
                      .get(cohort)
                      .map(l -> l.spec().admitted().size())
                      .orElse(0);
              loop.enqueueAfter(cohort, marksWait(entries));
            });
  }

  /** How long a mark waits in a cohort of {@code entries} admissions ({@link #STARTED_MARKS}). */
  static Duration marksWait(int entries) {
    var wait = STARTED_MARKS_PER_ENTRY.multipliedBy(entries);
    if (wait.compareTo(STARTED_MARKS) < 0) {
      return STARTED_MARKS;
    }
    return wait.compareTo(STARTED_MARKS_MOST) > 0 ? STARTED_MARKS_MOST : wait;
  }

  private void enqueueCohortOf(Workload w) {
    changed(Admissions.cohortOf(informers, w).orElse(w.spec().queueName()));
  }

  /** Every cohort with a queue changed. */
  private void allChanged() {
    informers.queues().cache().list().forEach(q -> changed(q.cohort()));
  }

  /** {@code cohort} changed ({@link CohortChanges}): its next pass decides it whole. */
  private void changed(String cohort) {
    changes.changed(cohort);
    loop.enqueue(cohort);
  }
}
