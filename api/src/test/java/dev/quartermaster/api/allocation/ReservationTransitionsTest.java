package dev.quartermaster.api.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.error.ApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A gang reservation's state machine, every change of it, written out here apart from the code. */
class ReservationTransitionsTest {
  /** The moves: from → to, "-" for not in the ledger. */
  private static final String MOVES =
      """
      -        Proposed
      Proposed Held
      Proposed -
      Held     -
      """;

  /**
   * What the store says to each write of a reservation over what the ledger holds for its gang, the
   * decision kept (same) or changed (other): - lets it by, WP written proposed, OD one decision, HR
   * held until removed; and whether it is judged against the records (rec) or not (-).
   */
  private static final String STORE =
      """
      -        Proposed same  -  rec
      -        Held     same  WP rec
      Proposed Proposed same  -  -
      Proposed Held     same  -  rec
      Held     Held     same  -  -
      Held     Proposed same  HR -
      Proposed Proposed other OD -
      Proposed Held     other OD rec
      Held     Held     other OD -
      Held     Proposed other OD -
      """;

  @Test
  void theMovesAreExactlyThese() {
    var written = new ArrayList<String>();
    for (var line : MOVES.strip().split("\n")) {
      var f = line.trim().split("\\s+");
      written.add(f[0] + " " + f[1]);
    }
    assertThat(
            ReservationTransitions.MOVES.stream()
                .map(m -> name(m.from()) + " " + name(m.to()))
                .toList())
        .containsExactlyInAnyOrderElementsOf(written);
    assertThat(ReservationTransitions.MOVES).allMatch(m -> !m.judged().isBlank());
  }

  @Test
  void theStoreRefusesEveryOtherChangeNamingItsRule() {
    var wrong = new ArrayList<String>();
    for (var line : STORE.strip().split("\n")) {
      var f = line.trim().split("\\s+");
      var was =
          f[0].equals("-")
              ? Optional.<GangReservation>empty()
              : Optional.of(reservation(ReservationPhase.valueOf(f[0]), "gpu-0"));
      var next =
          reservation(ReservationPhase.valueOf(f[1]), f[2].equals("same") ? "gpu-0" : "gpu-1");
      var rule = ReservationTransitions.refusal(was, next).map(ReservationTransitionsTest::code);
      var expected = f[3].equals("-") ? Optional.<String>empty() : Optional.of(f[3]);
      if (!rule.equals(expected)) {
        wrong.add(line.trim() + ": got " + rule.orElse("-"));
      }
      if (rule.isEmpty() && ReservationTransitions.checksRecords(was, next) != f[4].equals("rec")) {
        wrong.add(line.trim() + ": records checked " + !f[4].equals("rec"));
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void onlyAProposedReservationIsHeld() {
    var proposed = reservation(ReservationPhase.Proposed, "gpu-0");
    assertThat(ReservationTransitions.held(proposed).phase()).isEqualTo(ReservationPhase.Held);
    assertThatThrownBy(() -> ReservationTransitions.held(proposed.withPhase(ReservationPhase.Held)))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("only a proposed reservation is held");
  }

  private static String name(Optional<ReservationPhase> p) {
    return p.map(Enum::name).orElse("-");
  }

  private static String code(ReservationRule r) {
    return switch (r) {
      case WRITTEN_PROPOSED -> "WP";
      case ONE_DECISION -> "OD";
      case HELD_UNTIL_REMOVED -> "HR";
    };
  }

  private static GangReservation reservation(ReservationPhase phase, String device) {
    return new GangReservation(
        "train",
        "uid-train",
        "workers",
        1,
        phase,
        List.of(
            new ReservedMember(
                "train-workers-0",
                "uid-task",
                "node-a",
                List.of(
                    new ReservedClaim(
                        "train-workers-0-gpu",
                        "uid-claim",
                        List.of(new AllocatedDevice("gpu", device)))))));
  }
}
