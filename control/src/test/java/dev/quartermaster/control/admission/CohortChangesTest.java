package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * When a pass may only mark starts: never before a whole decision, never after a change, never once
 * that decision's recheck is due; and a change during a whole decision makes the next pass whole
 * too. A row is what happens, then what the next pass is.
 */
class CohortChangesTest {
  private record Row(String what, Consumer<World> steps, boolean onlyMarks) {}

  /** One cohort's counter and a clock; {@link #decide} runs a whole pass as the controller does. */
  private static final class World {
    final DeterministicEnv env = new DeterministicEnv(7);
    final CohortChanges changes;

    World(boolean counting) {
      changes = new CohortChanges(env, counting);
    }

    World() {
      this(true);
    }

    void decide(Optional<Duration> recheck) {
      changes.decided(changes.begin("c"), recheck);
    }
  }

  private static final List<Row> ROWS =
      List.of(
          new Row("nothing decided yet", w -> {}, false),
          new Row("a change, nothing decided yet", w -> w.changes.changed("c"), false),
          new Row("decided, no recheck", w -> w.decide(Optional.empty()), true),
          new Row(
              "decided, an hour passed, no recheck",
              w -> {
                w.decide(Optional.empty());
                w.env.advance(Duration.ofHours(1));
              },
              true),
          new Row(
              "decided, then a change",
              w -> {
                w.decide(Optional.empty());
                w.changes.changed("c");
              },
              false),
          new Row(
              "decided, then another cohort's change",
              w -> {
                w.decide(Optional.empty());
                w.changes.changed("other");
              },
              true),
          new Row(
              "a change while the whole decision ran",
              w -> {
                var pass = w.changes.begin("c");
                w.changes.changed("c");
                w.changes.decided(pass, Optional.empty());
              },
              false),
          new Row(
              "decided again after a change",
              w -> {
                w.decide(Optional.empty());
                w.changes.changed("c");
                w.decide(Optional.empty());
              },
              true),
          new Row(
              "decided, recheck in 60 s, 59 s passed",
              w -> {
                w.decide(Optional.of(Duration.ofSeconds(60)));
                w.env.advance(Duration.ofSeconds(59));
              },
              true),
          new Row(
              "decided, recheck in 60 s, 60 s passed",
              w -> {
                w.decide(Optional.of(Duration.ofSeconds(60)));
                w.env.advance(Duration.ofSeconds(60));
              },
              false),
          new Row(
              "decided, then the cohort forgotten (no queue, no ledger)",
              w -> {
                w.decide(Optional.empty());
                w.changes.forget("c");
              },
              false),
          new Row(
              "decided, then a new term",
              w -> {
                w.decide(Optional.empty());
                w.changes.clear();
              },
              false));

  @Test
  void aPassOnlyMarksWhenNothingChangedSinceAWholeDecisionWhoseRecheckIsNotDue() {
    for (var row : ROWS) {
      var w = new World();
      row.steps().accept(w);
      assertThat(w.changes.begin("c").onlyMarks()).as(row.what()).isEqualTo(row.onlyMarks());
    }
  }

  /**
   * The simulation's naive variant ({@link Requeueing#wholeOnlyAtRechecks}, caught by L1 in {@code
   * QueueNaiveVariantsTest}) counts no change: after a whole decision only its recheck or a new
   * term brings the next.
   */
  @Test
  void theNaiveCounterMarksOnlyAfterAChangeToo() {
    var w = new World(false);
    w.decide(Optional.empty());
    w.changes.changed("c");
    assertThat(w.changes.begin("c").onlyMarks()).isTrue();
    w.changes.clear();
    assertThat(w.changes.begin("c").onlyMarks()).isFalse();
  }

  @Test
  void aPassThatOnlyMarksKeepsTheWholeDecisionsRecheckDueWhenItWas() {
    var w = new World();
    w.decide(Optional.of(Duration.ofSeconds(60)));
    w.env.advance(Duration.ofSeconds(45));
    assertThat(w.changes.begin("c").recheck()).contains(Duration.ofSeconds(15));
    w.decide(Optional.empty());
    assertThat(w.changes.begin("c").recheck()).isEmpty();
  }
}
