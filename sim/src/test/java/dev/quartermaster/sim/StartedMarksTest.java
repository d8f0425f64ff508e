package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.admission.Requeueing;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.informer.EventHandler;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A workload's admission is marked started once all it needs runs, and the mark is a write of its
 * cohort's whole ledger after a decision over the whole cohort. Workloads that start in a burst
 * share one decision and one write, and a write that only marked brings no decision of its own: at
 * 10,000 nodes (1,000 workloads a cohort) a decision for each start and another for its write's
 * event took half of the control plane's CPU. Here twelve workloads of one cohort start 100 ms
 * apart; all are marked, in a few writes and as many decisions. The naive triggers, as they were:
 * the cohort decided again at each start (a write per start), and at each event of the ledger (two
 * decisions per write).
 */
class StartedMarksTest {
  private static final int WORKLOADS = 12;

  @Test
  void workloadsThatStartInABurstAreMarkedStartedInAFewWritesAndAsManyDecisions() {
    var run = run(Trigger.REAL);
    assertThat(run.started()).as("every admission marked started").isEqualTo(WORKLOADS);
    assertThat(run.markingWrites()).as("ledger writes that marked").isBetween(1, 3);
    assertThat(run.decisions()).as("decisions of the cohort").isEqualTo(run.markingWrites());
  }

  @Test
  void theNaiveTriggerDecidesTheCohortAndWritesItsLedgerForEveryStart() {
    var run = run(Trigger.EACH_START);
    assertThat(run.started()).isEqualTo(WORKLOADS);
    assertThat(run.markingWrites()).isGreaterThanOrEqualTo(WORKLOADS - 1);
  }

  @Test
  void theNaiveLedgerTriggerDecidesAgainAfterEveryWrite() {
    var run = run(Trigger.EACH_LEDGER_EVENT);
    assertThat(run.started()).isEqualTo(WORKLOADS);
    assertThat(run.decisions()).isGreaterThanOrEqualTo(2 * run.markingWrites());
  }

  /** What decides the cohort again: the controller's own triggers, or a naive one beside them. */
  private enum Trigger {
    REAL,
    EACH_START,
    EACH_LEDGER_EVENT
  }

  private record Run(int started, int markingWrites, int decisions) {}

  private static Run run(Trigger trigger) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var informers = new Informers(c.env(), c.api());
    informers.start();
    var admission =
        new AdmissionController(
            c.env(),
            c.api(),
            informers,
            EventRecorder.NONE,
            Requeueing.DEFAULT,
            AdmissionPolicy.DEFAULT);
    admission.startLeading();
    admission.loop().start();
    if (trigger == Trigger.EACH_LEDGER_EVENT) {
      informers
          .quotaLedgers()
          .addHandler(EventHandler.onAnyChange(l -> admission.loop().enqueue("c")));
    }
    if (trigger == Trigger.EACH_START) {
      informers
          .tasks()
          .addHandler(
              new EventHandler<>() {
                @Override
                public void onAdd(Task t) {}

                @Override
                public void onUpdate(Task old, Task t) {
                  if (old.status().phase() != TaskPhase.Running
                      && t.status().phase() == TaskPhase.Running) {
                    admission.loop().enqueue("c");
                  }
                }

                @Override
                public void onDelete(Task t) {}
              });
    }
    c.api().create(Worlds.gpuQueue("team", "c", 100));
    for (int i = 0; i < WORKLOADS; i++) {
      var w = Worlds.gpuWorkload("job-" + i, 1, "gpu", 1);
      c.api()
          .create(
              new Workload(w.metadata(), w.spec().inQueue("team", Optional.empty()), w.status()));
    }
    assertThat(c.runUntil(() -> admitted(c).size() == WORKLOADS, Duration.ofSeconds(30)))
        .as("all admitted")
        .isTrue();
    // The admissions' own decisions and their writes' events done, before counting.
    c.runUntil(() -> false, Duration.ofSeconds(5));
    var marks = new Marks();
    var decisions = new AtomicInteger();
    admission.loop().observeWith((controller, took, outcome) -> decisions.incrementAndGet());
    for (int i = 0; i < WORKLOADS; i++) {
      var w = c.api().get(Kinds.WORKLOAD, "job-" + i).orElseThrow();
      var t = c.api().create(Worlds.handMadeTask(w, 0));
      var scheduled =
          c.api().updateStatus(t.withStatus(TaskTransitions.scheduled(t.status(), "node-1", "")));
      c.api().updateStatus(scheduled.withStatus(running(scheduled.status(), c)));
      c.runUntil(() -> marks.saw(admitted(c)), Duration.ofMillis(100));
    }
    c.runUntil(() -> marks.saw(admitted(c)) || marks.started == WORKLOADS, Duration.ofSeconds(10));
    // The marks' decisions are done: wait out any delayed one still due.
    c.runUntil(() -> false, Duration.ofSeconds(5));
    return new Run(marks.started, marks.writes, decisions.get());
  }

  /** Counts the ledger writes that marked a workload started, polled after every step. */
  private static final class Marks {
    int started;
    int writes;

    /** Always false: it only looks. */
    boolean saw(List<Admitted> entries) {
      int now = (int) entries.stream().filter(Admitted::started).count();
      if (now > started) {
        writes++;
        started = now;
      }
      return false;
    }
  }

  private static List<Admitted> admitted(SimCluster c) {
    return c.api()
        .get(Kinds.QUOTA_LEDGER, "c")
        .map(l -> List.copyOf(l.spec().admitted().values()))
        .orElse(List.of());
  }

  private static TaskStatus running(TaskStatus s, SimCluster c) {
    return new TaskStatus(
        TaskPhase.Running,
        "Started",
        "",
        s.node(),
        Optional.empty(),
        Optional.empty(),
        Optional.of(c.env().now()),
        Optional.empty(),
        List.of());
  }
}
