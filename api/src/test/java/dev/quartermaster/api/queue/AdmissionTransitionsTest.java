package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.MoveTable;
import dev.quartermaster.api.error.ApiException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The admission entry's machine, every (step, from, to) of it, written out here apart from the
 * code.
 */
class AdmissionTransitionsTest {
  /** Each step's moves: "STEP from → to to ...". */
  private static final String MOVES =
      """
      CARRY_OVER      Admitted  → Absent
      CARRY_OVER      Started   → Absent
      CARRY_OVER      Evicting  → Absent
      CARRY_OVER      Nominated → Absent
      ADMIT_NOMINATED Nominated → Admitted
      ADMIT_BY_SHARE  Absent    → Admitted
      ADMIT_BY_SHARE  Admitted  → Absent
      ADMIT_BY_SHARE  Started   → Absent
      PREEMPT         Absent    → Nominated
      PREEMPT         Nominated → Nominated
      PREEMPT         Admitted  → Evicting
      PREEMPT         Started   → Evicting
      START_TIMEOUT   Admitted  → Started Evicting
      OVER_QUOTA      Admitted  → Evicting
      OVER_QUOTA      Started   → Evicting
      """;

  /**
   * What the store says to each change whoever writes it: - lets it by, AF admitted first, TB never
   * taken back, SS started stays, UO unstarted only. Rows are from; columns to, in {@link
   * AdmissionState} order but for Evicting, then Evicting for each {@link EvictionReason}.
   */
  private static final String STORE =
      """
                Absent Nominated Admitted Started | Preempted Reclaimed StartTimeout OverQuota
      Absent    -      -         -        -       | AF        AF        AF           AF
      Nominated -      -         -        -       | AF        AF        AF           AF
      Admitted  -      -         -        -       | -         -         -            -
      Started   -      -         SS       -       | -         -         UO           -
      Evicting  -      -         TB       TB      | -         -         -            -
      """;

  private static final Instant AT = Instant.parse("2026-03-01T12:00:00Z");

  @Test
  void eachStepMakesExactlyItsMoves() {
    var expected = expectedMoves();
    var wrong = new ArrayList<String>();
    for (var step : AdmissionStep.values()) {
      for (var from : AdmissionState.values()) {
        for (var to : AdmissionState.values()) {
          boolean legal = expected.contains(step + " " + from + " " + to);
          if (AdmissionTransitions.allowed(step, from, to) != legal) {
            wrong.add(step + " " + from + " → " + to + (legal ? " refused" : " allowed"));
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(AdmissionTransitions.MOVES)
        .hasSize(expected.size())
        .allMatch(m -> !m.why().isBlank());
  }

  @Test
  void theStoreRefusesWhatBreaksAPromiseNamingTheRule() {
    assertThat(disagreements()).isEmpty();
  }

  /** No step makes a move the store refuses: the controller never fights its own guard. */
  @Test
  void theStoreLetsEveryMoveBy() {
    for (var m : AdmissionTransitions.MOVES) {
      var reason =
          switch (m.step()) {
            case START_TIMEOUT -> Optional.of(EvictionReason.StartTimeout);
            case OVER_QUOTA -> Optional.of(EvictionReason.OverQuota);
            default -> Optional.of(EvictionReason.Preempted);
          };
      assertThat(AdmissionTransitions.refusal(m.from(), m.to(), reason)).as(m.toString()).isEmpty();
      assertThat(
              AdmissionStep.evicting(reason.get()) == m.step() || m.to() != AdmissionState.Evicting)
          .as(m + " evicts for its own reason")
          .isTrue();
    }
  }

  /**
   * A grown workload admitted again whole is a new admission (its own time): its old one released
   * and the new made, both let by. Judged on the states alone, the same write reads as a started
   * admission unmarked, and the store would refuse every started workload that grows.
   */
  @Test
  void aNewAdmissionTakesItsOldOnesPlace() {
    var started = entry("u1", AT).markStarted();
    var grown = entry("u1", AT.plusSeconds(60));
    assertThat(changes(started, grown))
        .containsExactly(
            new AdmissionTransitions.Change(AdmissionState.Started, AdmissionState.Absent),
            new AdmissionTransitions.Change(AdmissionState.Absent, AdmissionState.Admitted));
    assertThat(refusals(started, grown)).isEmpty();
    var statesAlone =
        AdmissionTransitions.refusal(
            AdmissionState.of(started), AdmissionState.of(grown), Optional.empty());
    assertThat(statesAlone).contains(AdmissionRule.STARTED_STAYS);

    assertThat(refusals(started, entry("u1", AT))).containsExactly(AdmissionRule.STARTED_STAYS);
  }

  /**
   * An evicting entry is left only by its release: written over by anything else, it is taken back.
   */
  @Test
  void anEvictionIsLeftOnlyByItsRelease() {
    var evicting = entry("u1", AT).evictedBy(eviction("p"));
    assertThat(refusals(evicting, evicting.evictedBy(eviction("q"))))
        .containsExactly(AdmissionRule.NEVER_TAKEN_BACK);
    assertThat(refusals(evicting, entry("u2", AT.plusSeconds(1))))
        .as("a re-created workload's admission in its place")
        .containsExactly(AdmissionRule.NEVER_TAKEN_BACK);
    assertThat(refusals(evicting, evicting)).isEmpty();
    assertThat(
            AdmissionTransitions.changes(
                Optional.of(evicting), Optional.empty(), Optional.empty(), Optional.empty()))
        .containsExactly(
            new AdmissionTransitions.Change(AdmissionState.Evicting, AdmissionState.Absent));
  }

  @Test
  void onlyAnAdmissionIsEvicted() {
    var nomination = new Nomination("u1", "q", 5, List.of("v"), AT);
    var changes =
        AdmissionTransitions.changes(
            Optional.empty(),
            Optional.of(nomination),
            Optional.of(entry("u1", AT).evictedBy(eviction("p"))),
            Optional.empty());
    assertThat(changes)
        .containsExactly(
            new AdmissionTransitions.Change(AdmissionState.Nominated, AdmissionState.Evicting));
    assertThat(
            AdmissionTransitions.refusal(
                AdmissionState.Nominated,
                AdmissionState.Evicting,
                Optional.of(EvictionReason.Preempted)))
        .contains(AdmissionRule.ADMITTED_FIRST);
  }

  /** A workload's place in its ledger: its entry and its nomination. */
  private record Place(Optional<Admitted> entry, Optional<Nomination> nomination) {}

  /**
   * Each named move is made by its step from exactly the states the table gives it (each change as
   * the store decomposes the write), and together they make every move; any other is refused. (A
   * move takes a workload only as its step finds it: one admitted is not nominated.)
   */
  @Test
  void theNamedMovesMakeExactlyTheTable() {
    var later = AT.plusSeconds(60);
    var moves =
        Map.<String, UnaryOperator<Place>>of(
            "CARRY_OVER released",
                p ->
                    new Place(
                        AdmissionTransitions.released(p.entry().orElseThrow()), p.nomination()),
            "CARRY_OVER withdrawn",
                p ->
                    new Place(
                        p.entry(), AdmissionTransitions.withdrawn(p.nomination().orElseThrow())),
            "ADMIT_NOMINATED admitted",
                p ->
                    new Place(
                        Optional.of(
                            AdmissionTransitions.admittedNominated(
                                p.nomination().orElseThrow(), entry("u1", later))),
                        Optional.empty()),
            "ADMIT_BY_SHARE admitted",
                p ->
                    new Place(
                        Optional.of(
                            AdmissionTransitions.admittedByShare(
                                p.entry(), p.nomination(), entry("u1", later))),
                        p.nomination()),
            "PREEMPT nominated",
                p -> {
                  if (p.entry().isPresent()) {
                    throw new NoSuchElementException("it nominates only what is not admitted");
                  }
                  var chosen = new Nomination("u1", "q", 5, List.of("v2"), later);
                  return new Place(
                      p.entry(),
                      Optional.of(AdmissionTransitions.nominated(p.nomination(), chosen)));
                },
            "PREEMPT preempted",
                p ->
                    new Place(
                        Optional.of(
                            AdmissionTransitions.preempted(p.entry().orElseThrow(), eviction("p"))),
                        p.nomination()),
            "START_TIMEOUT started",
                p ->
                    new Place(
                        Optional.of(AdmissionTransitions.started(p.entry().orElseThrow())),
                        p.nomination()),
            "START_TIMEOUT timedOut",
                p ->
                    new Place(
                        Optional.of(AdmissionTransitions.timedOut(p.entry().orElseThrow(), later)),
                        p.nomination()),
            "OVER_QUOTA overQuota",
                p ->
                    new Place(
                        Optional.of(AdmissionTransitions.overQuota(p.entry().orElseThrow(), later)),
                        p.nomination()));
    var made = new HashSet<String>();
    moves.forEach(
        (name, move) -> {
          var step = AdmissionStep.valueOf(name.substring(0, name.indexOf(' ')));
          for (var from : AdmissionState.values()) {
            var was = place(from);
            try {
              var now = move.apply(was);
              if (!now.equals(was)) {
                AdmissionTransitions.changes(
                        was.entry(), was.nomination(), now.entry(), now.nomination())
                    .stream()
                    .filter(c -> c.from() != c.to())
                    .forEach(c -> made.add(step + " " + c.from() + " " + c.to()));
              }
            } catch (NoSuchElementException e) {
              // the move takes what this place has not (an entry, a nomination)
            } catch (ApiException e) {
              assertThat(e.error().code()).isEqualTo(409);
              assertThat(e.getMessage()).contains(" by " + step.text() + " refused: ");
            }
          }
        });
    // Staying in a state is no move (the table lists the one a step makes on purpose).
    var moving = new HashSet<String>();
    expectedMoves().stream()
        .filter(m -> !m.split(" ")[1].equals(m.split(" ")[2]))
        .forEach(moving::add);
    assertThat(made).isEqualTo(moving);
  }

  @Test
  void aMoveRefusedToItsStepSaysWhy() {
    var started = entry("u1", AT).markStarted();
    assertThatThrownBy(() -> AdmissionTransitions.timedOut(started, AT))
        .isInstanceOf(ApiException.class)
        .hasMessage(
            "Started → Evicting by the start timeout refused: "
                + AdmissionRule.UNSTARTED_ONLY.text());
    var evicting = AdmissionTransitions.overQuota(entry("u1", AT), AT);
    assertThatThrownBy(() -> AdmissionTransitions.preempted(evicting, eviction("p")))
        .hasMessage(
            "Evicting → Admitted by preempting refused: " + AdmissionRule.NEVER_TAKEN_BACK.text());
    assertThatThrownBy(
            () ->
                AdmissionTransitions.preempted(
                    entry("u1", AT), new Eviction("", "", EvictionReason.OverQuota, AT)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Each move keeps whom an admission evicted, and the rest of what it is given. */
  @Test
  void anAdmissionKeepsWhomItEvicted() {
    var nomination = new Nomination("u1", "q", 5, List.of("v1"), AT);
    assertThat(AdmissionTransitions.admittedNominated(nomination, entry("u1", AT)).preempted())
        .containsExactly("v1");
    var grown =
        AdmissionTransitions.admittedByShare(
            Optional.of(AdmissionTransitions.admittedNominated(nomination, entry("u1", AT))),
            Optional.empty(),
            entry("u1", AT.plusSeconds(60)));
    assertThat(grown)
        .isEqualTo(
            new Admitted(
                "u1",
                "q",
                Map.of("w", 1),
                Map.of("gpu", 1),
                0,
                AT.plusSeconds(60),
                Optional.empty(),
                List.of("v1")));
    var more =
        AdmissionTransitions.nominated(
            Optional.of(nomination),
            new Nomination("u1", "q", 5, List.of("v2"), AT.plusSeconds(9)));
    assertThat(more)
        .isEqualTo(new Nomination("u1", "q", 5, List.of("v1", "v2"), AT.plusSeconds(9)));
  }

  /** A workload standing in {@code state}. */
  private static Place place(AdmissionState state) {
    var a = entry("u1", AT);
    var nomination = new Nomination("u1", "q", 5, List.of("v1"), AT);
    return switch (state) {
      case Absent -> new Place(Optional.empty(), Optional.empty());
      case Nominated -> new Place(Optional.empty(), Optional.of(nomination));
      case Admitted -> new Place(Optional.of(a), Optional.empty());
      case Started -> new Place(Optional.of(a.markStarted()), Optional.empty());
      case Evicting -> new Place(Optional.of(a.evictedBy(eviction("p"))), Optional.empty());
    };
  }

  private static List<AdmissionTransitions.Change> changes(Admitted was, Admitted now) {
    return AdmissionTransitions.changes(
        Optional.of(was), Optional.empty(), Optional.of(now), Optional.empty());
  }

  private static List<AdmissionRule> refusals(Admitted was, Admitted now) {
    var reason = now.eviction().map(Eviction::reason);
    return changes(was, now).stream()
        .flatMap(c -> AdmissionTransitions.refusal(c.from(), c.to(), reason).stream())
        .toList();
  }

  private static Admitted entry(String uid, Instant at) {
    return new Admitted(uid, "q", Map.of("w", 1), Map.of("gpu", 1), 0, at);
  }

  private static Eviction eviction(String by) {
    return new Eviction(by, "uid-" + by, EvictionReason.Preempted, AT);
  }

  /** Where the code differs from {@link #STORE}: "from → to: expected X, got Y". */
  private static List<String> disagreements() {
    var out = new ArrayList<String>();
    var rows = STORE.strip().split("\n");
    var columns = rows[0].replace("|", " ").trim().split("\\s+");
    for (int r = 1; r < rows.length; r++) {
      var cells = rows[r].replace("|", " ").trim().split("\\s+");
      var from = AdmissionState.valueOf(cells[0]);
      for (int c = 0; c < columns.length; c++) {
        var column = columns[c];
        var evicting =
            Arrays.stream(EvictionReason.values()).anyMatch(x -> x.name().equals(column));
        var to = evicting ? AdmissionState.Evicting : AdmissionState.valueOf(column);
        var reason =
            evicting
                ? Optional.of(EvictionReason.valueOf(column))
                : Optional.<EvictionReason>empty();
        var got =
            AdmissionTransitions.refusal(from, to, reason)
                .map(AdmissionTransitionsTest::code)
                .orElse("-");
        if (!cells[1 + c].equals(got)) {
          out.add(from + " → " + column + ": expected " + cells[1 + c] + ", got " + got);
        }
      }
    }
    assertThat(rows).hasSize(1 + AdmissionState.values().length);
    return out;
  }

  private static String code(AdmissionRule rule) {
    return switch (rule) {
      case ADMITTED_FIRST -> "AF";
      case NEVER_TAKEN_BACK -> "TB";
      case STARTED_STAYS -> "SS";
      case UNSTARTED_ONLY -> "UO";
    };
  }

  /** {@link #MOVES} as "STEP from to" strings. */
  private static Set<String> expectedMoves() {
    return MoveTable.parse(MOVES);
  }
}
