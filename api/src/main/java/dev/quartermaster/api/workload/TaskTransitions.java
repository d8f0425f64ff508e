package dev.quartermaster.api.workload;

import static dev.quartermaster.api.workload.PhaseWriter.AGENT;
import static dev.quartermaster.api.workload.PhaseWriter.DEADLINES;
import static dev.quartermaster.api.workload.PhaseWriter.NODE_LIFECYCLE;
import static dev.quartermaster.api.workload.PhaseWriter.RESTARTS;
import static dev.quartermaster.api.workload.PhaseWriter.SCHEDULER;
import static dev.quartermaster.api.workload.TaskPhase.Failed;
import static dev.quartermaster.api.workload.TaskPhase.Pending;
import static dev.quartermaster.api.workload.TaskPhase.Preparing;
import static dev.quartermaster.api.workload.TaskPhase.Running;
import static dev.quartermaster.api.workload.TaskPhase.Scheduled;
import static dev.quartermaster.api.workload.TaskPhase.Succeeded;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The task's phase machine, its one home: who may move a task from which phase to which, and why
 * ({@link #MOVES}), and the moves themselves, each a method its writer builds the status with.
 *
 * <pre>
 * Pending --scheduler--> Scheduled --agent--> Preparing --agent--> Running --agent--> Succeeded | Failed
 *                            '--------agent: a quick start or exit, a failure---------^
 * Pending | Scheduled | Preparing | Running --node lifecycle (lost, fenced)--> Failed
 * Running --deadlines (activeDeadlineSeconds passed; its agent then kills the process)--> Failed
 * </pre>
 *
 * A finished task never runs again; its replacement is a new task (a new uid) of the same name, and
 * a create is no move. So a finished task uses its claims no more ({@link #usesClaims}): they are
 * released at once, unprepared on its node and deleted, as a finished pod's are, whether or not a
 * replacement follows (it gets claims of its own). The store refuses every change of phase that no
 * writer may make, whoever writes it ({@code store/registry/TaskPhaseGuard}, 409 naming the {@link
 * PhaseRule}); a write that keeps the phase is no transition, and the store lets it by. Each move
 * here refuses the same way if its writer may not make it from the phase it is given.
 */
public final class TaskTransitions {
  private TaskTransitions() {}

  /**
   * Every move any writer makes; a pair of phases not here is refused (a write that keeps the phase
   * aside).
   */
  public static final List<TaskMove> MOVES =
      List.of(
          new TaskMove(
              SCHEDULER,
              Pending,
              Pending,
              "it says why it waits: its claims, their allocation, a ready node"),
          new TaskMove(
              SCHEDULER,
              Pending,
              Scheduled,
              "its node is known, and its claims are reserved for it in the same transaction"),
          new TaskMove(
              AGENT,
              Scheduled,
              Preparing,
              "it waits for its claims, volumes or compute domain, or its process to start"),
          new TaskMove(AGENT, Preparing, Preparing, "it says what it waits for now"),
          new TaskMove(
              AGENT, Scheduled, Running, "the device check passed before a wait was worth saying"),
          new TaskMove(AGENT, Preparing, Running, "the device check passed"),
          new TaskMove(
              AGENT, Running, Running, "its conditions: devices complete, compute domain ready"),
          new TaskMove(AGENT, Scheduled, Succeeded, "it exited 0 before Running was written"),
          new TaskMove(AGENT, Preparing, Succeeded, "it exited 0 before Running was written"),
          new TaskMove(AGENT, Running, Succeeded, "it exited 0"),
          new TaskMove(
              AGENT,
              Scheduled,
              Failed,
              "it could not start (runtime, device check), or the agent restarted"),
          new TaskMove(
              AGENT,
              Preparing,
              Failed,
              "it could not start (runtime, device check), or the agent restarted"),
          new TaskMove(
              AGENT,
              Running,
              Failed,
              "it exited non-zero, lost a device node, or the agent restarted"),
          new TaskMove(
              NODE_LIFECYCLE, Pending, Failed, "its node stopped heartbeating or was fenced"),
          new TaskMove(
              NODE_LIFECYCLE, Scheduled, Failed, "its node stopped heartbeating or was fenced"),
          new TaskMove(
              NODE_LIFECYCLE, Preparing, Failed, "its node stopped heartbeating or was fenced"),
          new TaskMove(
              NODE_LIFECYCLE, Running, Failed, "its node stopped heartbeating or was fenced"),
          new TaskMove(
              DEADLINES,
              Running,
              Failed,
              "it ran past its activeDeadlineSeconds; its agent kills the process"),
          new TaskMove(
              RESTARTS,
              Succeeded,
              Succeeded,
              "it says it waits to be replaced (condition Restarting)"),
          new TaskMove(
              RESTARTS, Failed, Failed, "it says it waits to be replaced (condition Restarting)"));

  /**
   * Whether a task in {@code phase} may still use its claims: until it has finished. A finished
   * task's own claims are released (its node unprepares them, the store deletes them), and no claim
   * is made for it any more.
   */
  public static boolean usesClaims(TaskPhase phase) {
    return !phase.isFinished();
  }

  /** Whether {@code who} may write {@code to} over {@code from}. */
  public static boolean allowed(PhaseWriter who, TaskPhase from, TaskPhase to) {
    return MOVES.stream().anyMatch(m -> m.writer() == who && m.from() == from && m.to() == to);
  }

  /**
   * The rule that refuses {@code from → to} to every writer, as the store judges a write it cannot
   * attribute; empty where some writer may, or the phase stays.
   */
  public static Optional<PhaseRule> refusal(TaskPhase from, TaskPhase to) {
    if (from == to || MOVES.stream().anyMatch(m -> m.from() == from && m.to() == to)) {
      return Optional.empty();
    }
    if (from.isFinished()) {
      return Optional.of(to.isFinished() ? PhaseRule.OUTCOME_FINAL : PhaseRule.NEVER_AGAIN);
    }
    return Optional.of(from == Pending ? PhaseRule.SCHEDULED_FIRST : PhaseRule.NEVER_BACK);
  }

  /** Scheduler: a Pending task says why it waits. */
  public static TaskStatus waiting(TaskStatus s, String reason, String message) {
    return move(
        SCHEDULER,
        s,
        new TaskStatus(
            Pending,
            reason,
            message,
            s.node(),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            s.finishedAt(),
            s.conditions()));
  }

  /**
   * Scheduler (or the allocator): Scheduled on {@code node}; the writer reserves its claims in the
   * same transaction.
   */
  public static TaskStatus scheduled(TaskStatus s, String node, String message) {
    return move(
        SCHEDULER,
        s,
        new TaskStatus(
            Scheduled,
            "Scheduled",
            message,
            Optional.of(node),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            s.finishedAt(),
            s.conditions()));
  }

  /** Agent: Preparing, saying what the task waits for. */
  public static TaskStatus preparing(TaskStatus s, String reason, String message) {
    return move(
        AGENT,
        s,
        new TaskStatus(
            Preparing,
            reason,
            message,
            s.node(),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            s.finishedAt(),
            s.conditions()));
  }

  /** Agent: Running, only with a passed device check; started now unless it says when already. */
  public static TaskStatus running(
      TaskStatus s, DeviceCheck passed, String reason, String message, Instant now) {
    if (!passed.passed()) {
      throw new IllegalArgumentException("a task runs only with a passed device check: " + passed);
    }
    return move(
        AGENT,
        s,
        new TaskStatus(
            Running,
            reason,
            message,
            s.node(),
            Optional.of(passed),
            Optional.empty(),
            Optional.of(s.startedAt().orElse(now)),
            Optional.empty(),
            s.conditions()));
  }

  /** Agent: the process exited with {@code code}: Succeeded for 0, else Failed. */
  public static TaskStatus exited(
      TaskStatus s, int code, DeviceCheck check, String reason, String message, Instant now) {
    return move(
        AGENT,
        s,
        new TaskStatus(
            code == 0 ? Succeeded : Failed,
            reason,
            message,
            s.node(),
            Optional.of(check),
            Optional.of(code),
            Optional.of(s.startedAt().orElse(now)),
            Optional.of(now),
            s.conditions()));
  }

  /**
   * Agent: Failed without an exit (could not start, device lost, agent restarted), with {@code
   * check} as the device check.
   */
  public static TaskStatus failed(
      TaskStatus s, Optional<DeviceCheck> check, String reason, String message, Instant now) {
    return move(
        AGENT,
        s,
        new TaskStatus(
            Failed,
            reason,
            message,
            s.node(),
            check,
            Optional.empty(),
            s.startedAt(),
            Optional.of(now),
            s.conditions()));
  }

  /** Node lifecycle: Failed because the task's node was lost or fenced; the rest as it was. */
  public static TaskStatus lost(TaskStatus s, String reason, String message, Instant now) {
    return move(
        NODE_LIFECYCLE,
        s,
        new TaskStatus(
            Failed,
            reason,
            message,
            s.node(),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            Optional.of(now),
            s.conditions()));
  }

  /** Reason of a task stopped at its deadline. */
  public static final String DEADLINE_EXCEEDED = "DeadlineExceeded";

  /**
   * Deadlines: Failed because it was still running at its deadline; its agent kills the process on
   * seeing it finished.
   */
  public static TaskStatus deadlineExceeded(TaskStatus s, String message, Instant now) {
    return move(
        DEADLINES,
        s,
        new TaskStatus(
            Failed,
            DEADLINE_EXCEEDED,
            message,
            s.node(),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            Optional.of(now),
            s.conditions()));
  }

  /**
   * {@code who}'s conditions on a task whose phase stays (the agent's on a running task, the
   * restarts' on a finished one).
   */
  public static TaskStatus withConditions(
      PhaseWriter who, TaskStatus s, List<Condition> conditions) {
    return move(
        who,
        s,
        new TaskStatus(
            s.phase(),
            s.reason(),
            s.message(),
            s.node(),
            s.deviceCheck(),
            s.exitCode(),
            s.startedAt(),
            s.finishedAt(),
            conditions));
  }

  /**
   * {@code next}, if {@code who} may write its phase over {@code s}'s; else the store's answer,
   * before the write.
   */
  private static TaskStatus move(PhaseWriter who, TaskStatus s, TaskStatus next) {
    if (!allowed(who, s.phase(), next.phase())) {
      var rule =
          refusal(s.phase(), next.phase())
              .map(PhaseRule::text)
              .orElse("not a move of " + who.text());
      throw new ApiException(
          Reason.Conflict,
          s.phase() + " → " + next.phase() + " by " + who.text() + " refused: " + rule);
    }
    return next;
  }
}
