package dev.quartermaster.api.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.MoveTable;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The task's phase machine, every (writer, from, to) of it, written out here apart from the code.
 */
class TaskTransitionsTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final DeviceCheck PASSED =
      new DeviceCheck(true, List.of("/dev/nvidia0"), Optional.empty());

  /** Each writer's moves: "WRITER from → to to ...". */
  private static final String MOVES =
      """
      SCHEDULER      Pending   → Pending Scheduled
      AGENT          Scheduled → Preparing Running Succeeded Failed
      AGENT          Preparing → Preparing Running Succeeded Failed
      AGENT          Running   → Running Succeeded Failed
      NODE_LIFECYCLE Pending   → Failed
      NODE_LIFECYCLE Scheduled → Failed
      NODE_LIFECYCLE Preparing → Failed
      NODE_LIFECYCLE Running   → Failed
      DEADLINES      Running   → Failed
      RESTARTS       Succeeded → Succeeded
      RESTARTS       Failed    → Failed
      """;

  /**
   * What the store says to each change whoever writes it: - lets it by, SF scheduled first, NB
   * never back, NA never again, OF outcome final. Rows are from, columns to, in {@link TaskPhase}
   * order.
   */
  private static final String STORE =
      """
      Pending   -  -  SF SF SF -
      Scheduled NB -  -  -  -  -
      Preparing NB NB -  -  -  -
      Running   NB NB NB -  -  -
      Succeeded NA NA NA NA -  OF
      Failed    NA NA NA NA OF -
      """;

  @Test
  void eachWriterMayMakeExactlyItsMoves() {
    var expected = expectedMoves();
    var wrong = new ArrayList<String>();
    for (var who : PhaseWriter.values()) {
      for (var from : TaskPhase.values()) {
        for (var to : TaskPhase.values()) {
          boolean legal = expected.contains(who + " " + from + " " + to);
          if (TaskTransitions.allowed(who, from, to) != legal) {
            wrong.add(who + " " + from + " → " + to + (legal ? " refused" : " allowed"));
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(TaskTransitions.MOVES).hasSize(expected.size()).allMatch(m -> !m.why().isBlank());
  }

  /** Which phases use their claims, written out: a finished task's are released. */
  private static final String USES_CLAIMS =
      """
      Pending   yes
      Scheduled yes
      Preparing yes
      Running   yes
      Succeeded no
      Failed    no
      """;

  @Test
  void onlyATaskThatMayStillRunUsesItsClaims() {
    for (var line : USES_CLAIMS.strip().split("\n")) {
      var parts = line.trim().split("\\s+");
      assertThat(TaskTransitions.usesClaims(TaskPhase.valueOf(parts[0])))
          .as(parts[0])
          .isEqualTo(parts[1].equals("yes"));
    }
    assertThat(USES_CLAIMS.strip().split("\n")).hasSize(TaskPhase.values().length);
  }

  @Test
  void theStoreRefusesEveryChangeNoWriterMayMakeNamingTheRule() {
    assertThat(disagreements(TaskTransitions::refusal)).isEmpty();
  }

  /**
   * The naive rule "a phase only moves forward" lets a task run unscheduled and a success turn into
   * a failure.
   */
  @Test
  void aForwardOnlyRuleIsCaught() {
    BiFunction<TaskPhase, TaskPhase, Optional<PhaseRule>> forwardOnly =
        (from, to) ->
            to.ordinal() >= from.ordinal() ? Optional.empty() : Optional.of(PhaseRule.NEVER_BACK);
    assertThat(disagreements(forwardOnly))
        .contains(
            "Pending → Running: expected SF, got -",
            "Succeeded → Failed: expected OF, got -",
            "Succeeded → Pending: expected NA, got NB");
  }

  /**
   * Each named move is made by its writer from exactly the phases the table gives it, and together
   * they make every move.
   */
  @Test
  void theNamedMovesMakeExactlyTheTable() {
    var cond =
        List.of(
            new Condition("Restarting", Condition.Status.True, "BackOff", "", Optional.empty()));
    var moves =
        new java.util.HashMap<String, UnaryOperator<TaskStatus>>(
            Map.of(
                "SCHEDULER waiting",
                    s -> TaskTransitions.waiting(s, "NoReadyNode", "no node is ready"),
                "SCHEDULER scheduled",
                    s -> TaskTransitions.scheduled(s, "node-1", "placed on node node-1"),
                "AGENT preparing", s -> TaskTransitions.preparing(s, "WaitingForClaims", "claim c"),
                "AGENT running",
                    s -> TaskTransitions.running(s, PASSED, "DeviceCheckPassed", "", NOW),
                "AGENT exited 0", s -> TaskTransitions.exited(s, 0, PASSED, "Completed", "", NOW),
                "AGENT exited 1", s -> TaskTransitions.exited(s, 1, PASSED, "Error", "", NOW),
                "AGENT failed",
                    s -> TaskTransitions.failed(s, s.deviceCheck(), "StartFailed", "", NOW),
                "AGENT conditions", s -> TaskTransitions.withConditions(PhaseWriter.AGENT, s, cond),
                "NODE_LIFECYCLE lost", s -> TaskTransitions.lost(s, "NodeLost", "", NOW),
                "RESTARTS conditions",
                    s -> TaskTransitions.withConditions(PhaseWriter.RESTARTS, s, cond)));
    moves.put("DEADLINES exceeded", s -> TaskTransitions.deadlineExceeded(s, "ran past 30s", NOW));
    var made = new HashSet<String>();
    var wrong = new ArrayList<String>();
    moves.forEach(
        (name, move) -> {
          var who = PhaseWriter.valueOf(name.substring(0, name.indexOf(' ')));
          for (var from : TaskPhase.values()) {
            try {
              var to = move.apply(status(from)).phase();
              made.add(who + " " + from + " " + to);
              if (!TaskTransitions.allowed(who, from, to)) {
                wrong.add(name + " made " + from + " → " + to);
              }
            } catch (ApiException e) {
              assertThat(e.error().code()).isEqualTo(409);
              assertThat(e.getMessage())
                  .startsWith(from + " → ")
                  .contains(" by " + who.text() + " refused: ");
            }
          }
        });
    assertThat(wrong).isEmpty();
    assertThat(made).isEqualTo(expectedMoves());
  }

  @Test
  void aMoveRefusedToItsWriterSaysWhy() {
    assertThatThrownBy(
            () -> TaskTransitions.running(status(TaskPhase.Succeeded), PASSED, "", "", NOW))
        .isInstanceOf(ApiException.class)
        .hasMessage("Succeeded → Running by the agent refused: a finished task never runs again");
    assertThatThrownBy(() -> TaskTransitions.lost(status(TaskPhase.Failed), "NodeLost", "", NOW))
        .hasMessage(
            "Failed → Failed by the node lifecycle refused: not a move of the node lifecycle");
    assertThatThrownBy(
            () ->
                TaskTransitions.running(
                    status(TaskPhase.Preparing),
                    new DeviceCheck(false, List.of(), Optional.of("/dev/nvidia0: denied")),
                    "",
                    "",
                    NOW))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eachMoveSetsWhatItSaysAndKeepsTheRest() {
    var s = status(TaskPhase.Pending);
    var scheduled = TaskTransitions.scheduled(s, "node-2", "placed on node node-2");
    assertThat(scheduled)
        .isEqualTo(
            new TaskStatus(
                TaskPhase.Scheduled,
                "Scheduled",
                "placed on node node-2",
                Optional.of("node-2"),
                s.deviceCheck(),
                s.exitCode(),
                s.startedAt(),
                s.finishedAt(),
                s.conditions()));
    var running = TaskTransitions.running(scheduled, PASSED, "DeviceCheckPassed", "opened", NOW);
    assertThat(running.startedAt()).contains(NOW);
    assertThat(running.deviceCheck()).contains(PASSED);
    var exited =
        TaskTransitions.exited(
            running, 3, PASSED, "Error", "exited with code 3", NOW.plusSeconds(5));
    assertThat(exited.phase()).isEqualTo(TaskPhase.Failed);
    assertThat(exited.exitCode()).contains(3);
    assertThat(exited.startedAt()).as("kept").contains(NOW);
    assertThat(exited.finishedAt()).contains(NOW.plusSeconds(5));
    var lost =
        TaskTransitions.lost(
            running, "NodeLost", "node-1 stopped heartbeating", NOW.plusSeconds(9));
    assertThat(lost)
        .isEqualTo(
            new TaskStatus(
                TaskPhase.Failed,
                "NodeLost",
                "node-1 stopped heartbeating",
                running.node(),
                running.deviceCheck(),
                running.exitCode(),
                running.startedAt(),
                Optional.of(NOW.plusSeconds(9)),
                running.conditions()));
  }

  /** Where {@code judge} differs from {@link #STORE}: "from → to: expected X, got Y". */
  private static List<String> disagreements(
      BiFunction<TaskPhase, TaskPhase, Optional<PhaseRule>> judge) {
    var out = new ArrayList<String>();
    for (var row : STORE.strip().split("\n")) {
      var cells = row.trim().split("\\s+");
      var from = TaskPhase.valueOf(cells[0]);
      for (var to : TaskPhase.values()) {
        var want = cells[1 + to.ordinal()];
        var got = judge.apply(from, to).map(TaskTransitionsTest::code).orElse("-");
        if (!want.equals(got)) {
          out.add(from + " → " + to + ": expected " + want + ", got " + got);
        }
      }
    }
    return out;
  }

  private static String code(PhaseRule rule) {
    return switch (rule) {
      case SCHEDULED_FIRST -> "SF";
      case NEVER_BACK -> "NB";
      case NEVER_AGAIN -> "NA";
      case OUTCOME_FINAL -> "OF";
    };
  }

  /** {@link #MOVES} as "WRITER from to" strings. */
  private static Set<String> expectedMoves() {
    return MoveTable.parse(MOVES);
  }

  private static TaskStatus status(TaskPhase phase) {
    return new TaskStatus(
        phase,
        "",
        "",
        Optional.of("node-1"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of());
  }
}
