package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.TaskConditions;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import dev.quartermaster.store.StoreEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, hole 4: a worker whose command always fails (exit code 1 a moment after it starts). Its
 * slot is re-created with growing gaps, each at least the backoff before its attempt, counted from
 * the failure; the attempt number rides on the new task and the wait is told on the failed one. A
 * run of 10 minutes resets the count. The naive variant (no backoff) restarts it hundreds of times.
 */
class CrashLoopTest {
  private static final RestartBackoff POLICY = RestartBackoff.DEFAULT;
  private static final RestartBackoff NONE =
      new RestartBackoff(Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10));

  /** One task of the slot: when it was created, with which attempt, and when it failed. */
  record Run(long createdNanos, int attempt, long failedNanos) {}

  record Outcome(List<Run> runs, List<String> violations, List<String> restartMessages) {}

  @Test
  void aFailingTaskIsRestartedNoFasterThanTheBackoff() {
    for (long seed : SimCluster.seeds(5)) {
      var o = run(seed, POLICY, Duration.ofMinutes(20), -1);
      assertThat(o.violations()).as("seed %d", seed).isEmpty();
      // 10+20+40+80+160 s, then every 5 min: about 8 runs in 20 minutes.
      assertThat(o.runs().size()).as("seed %d: runs %s", seed, o.runs()).isBetween(6, 10);
      assertThat(o.runs().stream().map(Run::attempt).toList())
          .as("seed %d", seed)
          .startsWith(0, 1, 2, 3, 4, 5, 6);
      assertThat(o.restartMessages())
          .as("seed %d", seed)
          .contains("replaced after a 40s back-off (attempt 3): exit code 1");
    }
  }

  @Test
  void aLongRunResetsTheCount() {
    var o = run(1, POLICY, Duration.ofMinutes(40), 5);
    var attempts = o.runs().stream().map(Run::attempt).toList();
    assertThat(o.violations()).isEmpty();
    // The 6th run (attempt 5) lasts 11 minutes: its replacement counts from 1 again.
    assertThat(attempts).startsWith(0, 1, 2, 3, 4, 5, 1);
  }

  @Test
  void theNaiveControllerWithoutBackoffIsCaught() {
    int caught = 0;
    for (long seed : SimCluster.seeds(5)) {
      var o = run(seed, NONE, Duration.ofMinutes(5), -1);
      if (!policyViolations(o.runs()).isEmpty()) {
        caught++;
      }
      assertThat(o.runs().size())
          .as("seed %d: the naive controller restarts it far more often", seed)
          .isGreaterThan(30);
    }
    System.out.println(
        "crash-loop: naive controller (no backoff) caught in "
            + caught
            + " of "
            + SimCluster.seeds(5).length
            + " seeds");
    assertThat(caught).isEqualTo(SimCluster.seeds(5).length);
  }

  private Outcome run(long seed, RestartBackoff backoff, Duration length, int longRun) {
    var c = new SimCluster(seed, WatchFaults.staleCache());
    var runs = new ArrayList<Run>();
    var messages = new ArrayList<String>();
    c.store().onCommit((revision, changes) -> record(c, changes, runs, messages));
    var inf = new Informers(c.env(), c.api());
    var loops =
        List.of(
            new WorkloadController(
                    c.env(),
                    c.api(),
                    inf,
                    WorkloadOptions.of(WorkloadController.DEFAULT_EXPECTATION_BOUND)
                        .withBackoff(backoff))
                .loop(),
            new TaskController(c.env(), c.api(), inf).loop());
    inf.start();
    loops.forEach(ControlLoop::start);
    crashingAgent(c, runs, longRun);
    c.api().create(workload());
    c.env().advance(length);
    return new Outcome(runs, policyViolations(runs), messages);
  }

  /** Gaps shorter than the policy allows: from a failure to the creation of the next attempt. */
  private static List<String> policyViolations(List<Run> runs) {
    var out = new ArrayList<String>();
    for (int i = 1; i < runs.size(); i++) {
      var prev = runs.get(i - 1);
      var next = runs.get(i);
      var gap = Duration.ofNanos(next.createdNanos() - prev.failedNanos());
      var least = POLICY.delayBefore(next.attempt());
      if (prev.failedNanos() < 0 || gap.compareTo(least) < 0) {
        out.add(
            "attempt "
                + next.attempt()
                + " created "
                + gap
                + " after the failure (policy: "
                + least
                + ")");
      }
    }
    return out;
  }

  private static void record(
      SimCluster c, List<StoreEvent> changes, List<Run> runs, List<String> messages) {
    for (var e : changes) {
      if (!e.kv().key().equals("/registry/tasks/w-g-0") || e.type() == StoreEvent.Type.DELETE) {
        continue;
      }
      var t = ObjectCodec.fromJson(e.kv().value(), Kinds.TASK);
      if (e.previous().isEmpty()) {
        runs.add(new Run(c.env().nanoTime(), t.spec().attempt(), -1));
      } else if (t.status().phase() == TaskPhase.Failed
          && !runs.isEmpty()
          && runs.getLast().failedNanos() < 0) {
        var last = runs.removeLast();
        runs.add(new Run(last.createdNanos(), last.attempt(), c.env().nanoTime()));
      }
      Condition.find(t.status().conditions(), TaskConditions.RESTARTING)
          .map(Condition::message)
          .filter(m -> !messages.contains(m))
          .ifPresent(messages::add);
    }
  }

  /**
   * A stand-in scheduler and agent: schedules and starts each Pending task, and fails it (exit code
   * 1) a second later — except run number {@code longRun} (0-based), which runs 11 minutes first.
   */
  private static void crashingAgent(SimCluster c, List<Run> runs, int longRun) {
    c.env()
        .schedule(
            Duration.ofMillis(500),
            () -> {
              for (var t : c.api().list(Kinds.TASK).items()) {
                var s = t.status();
                var ranFor =
                    s.startedAt()
                        .map(at -> Duration.between(at, c.env().now()))
                        .orElse(Duration.ZERO);
                var runFor =
                    runs.size() - 1 == longRun ? Duration.ofMinutes(11) : Duration.ofSeconds(1);
                try {
                  if (s.phase() == TaskPhase.Pending && !t.metadata().isDeleting()) {
                    // Scheduled first, as the scheduler would: the store runs no task that was not.
                    var scheduled =
                        c.api()
                            .updateStatus(t.withStatus(TaskTransitions.scheduled(s, "node-1", "")));
                    c.api()
                        .updateStatus(
                            scheduled.withStatus(
                                new TaskStatus(
                                    TaskPhase.Running,
                                    "Started",
                                    "",
                                    Optional.of("node-1"),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.of(c.env().now()),
                                    Optional.empty(),
                                    List.of())));
                  } else if (s.phase() == TaskPhase.Running && ranFor.compareTo(runFor) >= 0) {
                    c.api()
                        .updateStatus(
                            t.withStatus(
                                new TaskStatus(
                                    TaskPhase.Failed,
                                    "Error",
                                    "exited",
                                    s.node(),
                                    Optional.empty(),
                                    Optional.of(1),
                                    s.startedAt(),
                                    Optional.of(c.env().now()),
                                    s.conditions())));
                  }
                } catch (ApiException e) {
                  // raced with the controller; next round
                }
              }
              crashingAgent(c, runs, longRun);
            });
  }

  private static Workload workload() {
    var template =
        new TaskTemplate(List.of("false"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var group = new WorkerGroup("g", 1, template, List.of(), null);
    return new Workload(
        ObjectMeta.named("w"),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }
}
