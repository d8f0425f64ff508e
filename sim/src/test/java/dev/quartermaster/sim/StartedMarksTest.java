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
 * apart; all are marked, in a few writes and as many passes, none of which decides the whole cohort
 * again (nothing but starts changed: {@code CohortChanges}). The naive triggers, as they were: the
 * cohort decided again at each start (a write per start), and at each event of the ledger (two
 * decisions per write).
 */
class StartedMarksTest {
  private static final int WORKLOADS = 12;

  @Test
  void workloadsThatStartInABurstAreMarkedStartedInAFewWritesAndAsManyDecisions() {
    var run = run(Trigger.REAL);
    assertThat(run.started()).as("every admission marked started").isEqualTo(WORKLOADS);
    assertThat(run.markingWrites()).as("ledger writes that marked").isBetween(1, 3);
    assertThat(run.decisions()).as("passes of the cohort").isEqualTo(run.markingWrites());
    assertThat(run.wholeDecisions()).as("passes that decided the whole cohort").isZero();
  }

  /**
   * Passes that only mark starts still leave room for everything else: a workload created while
   * others start is admitted, and one that never starts is evicted when its start timeout comes
   * due, though a start's delayed pass took the place of that recheck in the queue again and again.
   */
  @Test
  void whileStartsAreMarkedANewcomerIsAdmittedAndAStartTimeoutComesDue() {
    var c = new SimCluster(1, WatchFaults.NONE);
    var admission = admission(c, new Informers(c.env(), c.api()));
    c.api().create(Worlds.gpuQueue("team", "c", 100));
    var late = Worlds.gpuWorkload("late", 1, "gpu", 1);
    c.api()
        .create(
            new Workload(
                late.metadata(),
                late.spec().inQueue("team", Optional.empty()).withStartTimeout(30),
                late.status()));
    for (int i = 0; i < 40; i++) {
      create(c, "job-" + i);
    }
    assertThat(c.runUntil(() -> admitted(c).size() == 41, Duration.ofSeconds(30))).isTrue();
    long wholeBefore = admission.wholeDecisions();
    var lateEvicted = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.function.BooleanSupplier watch =
        () -> {
          var a = c.api().get(Kinds.QUOTA_LEDGER, "c").orElseThrow().spec().admitted().get("late");
          if (a == null || a.evicting()) {
            lateEvicted.set(true);
          }
          return false;
        };
    for (int i = 0; i < 40; i++) {
      start(c, "job-" + i);
      if (i == 20) {
        create(c, "newcomer");
      }
      c.runUntil(watch, Duration.ofSeconds(1));
    }
    c.runUntil(watch, Duration.ofSeconds(5));
    var ledger = c.api().get(Kinds.QUOTA_LEDGER, "c").orElseThrow().spec().admitted();
    assertThat(ledger.get("newcomer")).as("the newcomer's admission").isNotNull();
    assertThat(lateEvicted).as("the workload that never started, evicted").isTrue();
    assertThat(ledger.values().stream().filter(Admitted::started).count())
        .as("admissions marked started")
        .isEqualTo(40);
    assertThat(admission.wholeDecisions() - wholeBefore)
        .as(
            "whole decisions: the newcomer's, the timeout's, the release's and the backoff's, and"
                + " their writes' events', not one for each of 40 starts")
        .isBetween(2L, 12L);
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

  private record Run(int started, int markingWrites, int decisions, long wholeDecisions) {}

  private static AdmissionController admission(SimCluster c, Informers informers) {
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
    return admission;
  }

  private static void create(SimCluster c, String name) {
    var w = Worlds.gpuWorkload(name, 1, "gpu", 1);
    c.api()
        .create(new Workload(w.metadata(), w.spec().inQueue("team", Optional.empty()), w.status()));
  }

  /** {@code name}'s one task made and running, as an agent would. */
  private static void start(SimCluster c, String name) {
    var w = c.api().get(Kinds.WORKLOAD, name).orElseThrow();
    var t = c.api().create(Worlds.handMadeTask(w, 0));
    var scheduled =
        c.api().updateStatus(t.withStatus(TaskTransitions.scheduled(t.status(), "node-1", "")));
    c.api().updateStatus(scheduled.withStatus(running(scheduled.status(), c)));
  }

  private static Run run(Trigger trigger) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var informers = new Informers(c.env(), c.api());
    var admission = admission(c, informers);
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
      create(c, "job-" + i);
    }
    assertThat(c.runUntil(() -> admitted(c).size() == WORKLOADS, Duration.ofSeconds(30)))
        .as("all admitted")
        .isTrue();
    // The admissions' own decisions and their writes' events done, before counting.
    c.runUntil(() -> false, Duration.ofSeconds(5));
    var marks = new Marks();
    var decisions = new AtomicInteger();
    admission.loop().observeWith((controller, took, outcome) -> decisions.incrementAndGet());
    long wholeBefore = admission.wholeDecisions();
    for (int i = 0; i < WORKLOADS; i++) {
      start(c, "job-" + i);
      c.runUntil(() -> marks.saw(admitted(c)), Duration.ofMillis(100));
    }
    c.runUntil(() -> marks.saw(admitted(c)) || marks.started == WORKLOADS, Duration.ofSeconds(10));
    // The marks' decisions are done: wait out any delayed one still due.
    c.runUntil(() -> false, Duration.ofSeconds(5));
    return new Run(
        marks.started, marks.writes, decisions.get(), admission.wholeDecisions() - wholeBefore);
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
