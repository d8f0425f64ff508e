package dev.quartermaster.agent.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The seam's decision as a table: (the task process here, the task as cached, the claim object) →
 * may the claim be released. One task, {@code train}, incarnation {@code uid-1}; its claim {@code
 * c}, uid {@code c-1}.
 */
class ClaimUseTest {
  static final String NODE = "node-1";
  static final String TASK = "train";
  static final String TASK_UID = "uid-1";
  static final ClaimRef CLAIM = new ClaimRef("c-1", "c");

  /** The process of the task here. */
  enum Run {
    /** None was started (or it was forgotten). */
    NONE,
    /** Started with the claim, before its device check. */
    STARTING,
    /** Started with the claim, its device check passed. */
    RUNNING,
    /** Started with the claim, then exited. */
    EXITED,
    /** Started with an earlier claim of the same name (another uid), still running. */
    RUNNING_WITH_EARLIER_CLAIM,
    /** An earlier incarnation of the task (another uid) runs with the claim. */
    EARLIER_INCARNATION_RUNNING
  }

  /** The task as the informer's cache shows it. */
  enum TaskSeen {
    LIVE,
    DELETING,
    GONE,
    /** Another incarnation (a new uid) under the same name. */
    REPLACED
  }

  /** The claim object. */
  enum Claim {
    /** Allocated here, owned by the task. */
    OWNED_HERE,
    /** Allocated here, made by hand (no owner). */
    UNOWNED_HERE,
    ALLOCATED_ELSEWHERE,
    DEALLOCATED,
    DELETING
  }

  @ParameterizedTest(name = "run {0}, task {1}, claim {2} → {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      # allocated here and not deleting: wanted unless its owner task is deleting with no process left
      NONE                        | LIVE     | OWNED_HERE          | Wanted
      RUNNING                     | LIVE     | OWNED_HERE          | Wanted
      RUNNING                     | DELETING | OWNED_HERE          | Wanted
      STARTING                    | DELETING | OWNED_HERE          | Wanted
      EXITED                      | DELETING | OWNED_HERE          | Free
      NONE                        | DELETING | OWNED_HERE          | Free
      EXITED                      | LIVE     | OWNED_HERE          | Wanted
      NONE                        | GONE     | OWNED_HERE          | Wanted
      NONE                        | REPLACED | OWNED_HERE          | Wanted
      NONE                        | DELETING | UNOWNED_HERE        | Wanted
      EXITED                      | DELETING | UNOWNED_HERE        | Wanted
      # not wanted here any more: kept while a process started with it may run, and says for whom
      RUNNING                     | LIVE     | ALLOCATED_ELSEWHERE | InUse train (running)
      STARTING                    | LIVE     | DEALLOCATED         | InUse train (starting)
      RUNNING                     | DELETING | DELETING            | InUse train (stopping)
      STARTING                    | DELETING | DEALLOCATED         | InUse train (stopping)
      RUNNING                     | GONE     | DELETING            | InUse train (stopping)
      RUNNING                     | REPLACED | DELETING            | InUse train (stopping)
      EARLIER_INCARNATION_RUNNING | LIVE     | DELETING            | InUse train (stopping)
      RUNNING                     | LIVE     | DELETING            | InUse train (running)
      EARLIER_INCARNATION_RUNNING | DELETING | OWNED_HERE          | InUse train (stopping)
      EXITED                      | LIVE     | ALLOCATED_ELSEWHERE | Free
      EXITED                      | DELETING | DELETING            | Free
      NONE                        | LIVE     | DEALLOCATED         | Free
      NONE                        | GONE     | DELETING            | Free
      RUNNING_WITH_EARLIER_CLAIM  | LIVE     | DELETING            | Free
      RUNNING_WITH_EARLIER_CLAIM  | LIVE     | ALLOCATED_ELSEWHERE | Free
      """)
  void mayTheClaimBeReleased(Run run, TaskSeen task, Claim claim, String expected) {
    var use = use(task);
    start(use, run);
    assertThat(said(use.verdict(claim(claim)))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "held claim, run {0}, task {1} → {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      # the ledger holds c-1 but the object is gone or another uid: only the process decides
      NONE                        | LIVE     | Free
      STARTING                    | LIVE     | InUse train (starting)
      RUNNING                     | LIVE     | InUse train (running)
      RUNNING                     | GONE     | InUse train (stopping)
      EXITED                      | LIVE     | Free
      EARLIER_INCARNATION_RUNNING | REPLACED | InUse train (stopping)
      RUNNING_WITH_EARLIER_CLAIM  | LIVE     | Free
      """)
  void mayAHeldClaimWithoutItsObjectBeReleased(Run run, TaskSeen task, String expected) {
    var use = use(task);
    start(use, run);
    assertThat(said(use.verdict(CLAIM))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "run {0} → may run: {1}")
  @CsvSource({
    "NONE, false",
    "STARTING, true",
    "RUNNING, true",
    "EXITED, false",
    "RUNNING_WITH_EARLIER_CLAIM, true",
    "EARLIER_INCARNATION_RUNNING, false"
  })
  void mayTheTaskIncarnationsProcessStillRun(Run run, boolean expected) {
    var use = use(TaskSeen.LIVE);
    start(use, run);
    assertThat(use.mayRun(TASK, TASK_UID)).isEqualTo(expected);
  }

  @Test
  void usersAreNamedInOrderAndAProcessEndLetsItsClaimsGo() {
    var rechecked = new ArrayList<String>();
    var tasks = new HashMap<String, Task>();
    var use = new ClaimUse(NODE, name -> Optional.ofNullable(tasks.get(name)), rechecked::add);
    for (var name : List.of("b", "a")) {
      tasks.put(name, task(name, "u-" + name, false));
      TestRuns.pass(TestRuns.start(use, name, "u-" + name, List.of(CLAIM)));
    }
    var verdict = use.verdict(CLAIM);
    assertThat(said(verdict)).isEqualTo("InUse a (running), b (running)");
    assertThat(ClaimUser.reason(((ClaimVerdict.InUse) verdict).users()))
        .isEqualTo("in use by task a (running), task b (running); unprepared when they stop");
    use.letGo(List.of("c", "d"));
    assertThat(rechecked).containsExactly("c", "d");
  }

  /**
   * The tasks with a run here come out in name order, whatever order they started in: a device
   * change requeues each of them, one by one, and a replayed run must requeue them in the same
   * order. {@code Set.copyOf} gave an order salted afresh by each JVM (seeds 374 and 679 of the
   * whole-cluster simulation wrote their task statuses in a different order from run to run).
   */
  @Test
  void theTasksWithARunHereComeOutInNameOrder() {
    var names = new ArrayList<String>();
    for (int i = 0; i < 20; i++) {
      names.add(String.format("task-%02d", (i * 7) % 20));
    }
    var tasks = new HashMap<String, Task>();
    var use = new ClaimUse(NODE, name -> Optional.ofNullable(tasks.get(name)), name -> {});
    for (var name : names) {
      tasks.put(name, task(name, "u-" + name, false));
      TestRuns.start(use, name, "u-" + name, List.of(CLAIM));
    }
    assertThat(new ArrayList<>(use.tasks()))
        .containsExactlyElementsOf(names.stream().sorted().toList());
  }

  @Test
  void aForgottenRunIsNoUserAndAReplacedOneStaysUntilForgotten() {
    var use = use(TaskSeen.LIVE);
    var process = TestRuns.start(use, TASK, TASK_UID, List.of(CLAIM));
    var run = use.run(TASK).orElseThrow();
    var stopped = run.stoppedFor("lost /dev/nvidia0");
    use.replace(TASK, run, stopped);
    use.forget(TASK, run); // not the run recorded any more: kept
    assertThat(use.hasRun(TASK)).isTrue();
    assertThat(said(use.verdict(CLAIM))).isEqualTo("InUse train (starting)");
    TestRuns.exit(process);
    use.forget(TASK, stopped);
    assertThat(use.hasRun(TASK)).isFalse();
    assertThat(use.tasks()).isEmpty();
    assertThat(said(use.verdict(CLAIM))).isEqualTo("Free");
  }

  private static ClaimUse use(TaskSeen seen) {
    var cached =
        switch (seen) {
          case LIVE -> Optional.of(task(TASK, TASK_UID, false));
          case DELETING -> Optional.of(task(TASK, TASK_UID, true));
          case GONE -> Optional.<Task>empty();
          case REPLACED -> Optional.of(task(TASK, "uid-2", false));
        };
    return new ClaimUse(NODE, name -> name.equals(TASK) ? cached : Optional.empty(), name -> {});
  }

  private static void start(ClaimUse use, Run run) {
    switch (run) {
      case NONE -> {}
      case STARTING -> TestRuns.start(use, TASK, TASK_UID, List.of(CLAIM));
      case RUNNING -> TestRuns.pass(TestRuns.start(use, TASK, TASK_UID, List.of(CLAIM)));
      case EXITED -> TestRuns.exit(TestRuns.start(use, TASK, TASK_UID, List.of(CLAIM)));
      case RUNNING_WITH_EARLIER_CLAIM ->
          TestRuns.pass(
              TestRuns.start(use, TASK, TASK_UID, List.of(new ClaimRef("c-0", CLAIM.name()))));
      case EARLIER_INCARNATION_RUNNING ->
          TestRuns.pass(TestRuns.start(use, TASK, "uid-0", List.of(CLAIM)));
    }
  }

  static Task task(String name, String uid, boolean deleting) {
    var meta = ObjectMeta.named(name).withUid(uid);
    return new Task(
        deleting ? meta.withDeletedAt(Instant.EPOCH) : meta, TaskSpec.EMPTY, TaskStatus.EMPTY);
  }

  private static ResourceClaim claim(Claim shape) {
    var meta = ObjectMeta.named(CLAIM.name()).withUid(CLAIM.uid());
    if (shape != Claim.UNOWNED_HERE) {
      meta = meta.withOwner(new OwnerReference(Kinds.TASK.name(), TASK, TASK_UID));
    }
    if (shape == Claim.DELETING) {
      meta = meta.withDeletedAt(Instant.EPOCH);
    }
    var status =
        switch (shape) {
          case ALLOCATED_ELSEWHERE ->
              ResourceClaimStatus.EMPTY.withAllocation(new Allocation("node-2", List.of()));
          case DEALLOCATED -> ResourceClaimStatus.EMPTY;
          default -> ResourceClaimStatus.EMPTY.withAllocation(new Allocation(NODE, List.of()));
        };
    return new ResourceClaim(meta, ResourceClaimSpec.EMPTY, status);
  }

  /** {@code Wanted}, {@code Free}, or {@code InUse a (running), b (stopping)}. */
  static String said(ClaimVerdict verdict) {
    return switch (verdict) {
      case ClaimVerdict.Wanted w -> "Wanted";
      case ClaimVerdict.Free f -> "Free";
      case ClaimVerdict.InUse u ->
          "InUse "
              + u.users().stream()
                  .map(x -> x.task() + " (" + x.state() + ")")
                  .collect(Collectors.joining(", "));
    };
  }
}
