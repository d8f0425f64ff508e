package dev.quartermaster.api.allocation;

import static dev.quartermaster.api.allocation.ReservationPhase.Held;
import static dev.quartermaster.api.allocation.ReservationPhase.Proposed;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.util.List;
import java.util.Optional;

/**
 * A gang reservation's state machine, its one home: the moves ({@link #MOVES}), the rule each
 * refused change breaks ({@link #refusal}), and the move the allocator writes ({@link #held}).
 *
 * <pre>
 * (absent) --propose: judged against other reservations, the records (a hint), the spec--> Proposed
 * Proposed --hold: judged against every record of its devices--> Held
 * Proposed | Held --remove: never refused, it only gives devices back--> (absent)
 * </pre>
 *
 * A reservation is one decision: its members, their nodes, claims and devices never change (a
 * different decision is another reservation). The store refuses every other change whoever writes
 * it ({@code store/registry/GangReservationGuard}: invalid, naming the field and the {@link
 * ReservationRule}); why the moves make a gang's placement exclusive and atomic is argued in the
 * allocator's {@code package-info}.
 */
public final class ReservationTransitions {
  private ReservationTransitions() {}

  /** Every move; a change not here (a phase kept with the same decision aside) is refused. */
  public static final List<ReservationMove> MOVES =
      List.of(
          new ReservationMove(
              Optional.empty(),
              Optional.of(Proposed),
              "no device another reservation holds, none a record gives to another claim, and the"
                  + " workload still at the spec generation it was decided on"),
          new ReservationMove(
              Optional.of(Proposed),
              Optional.of(Held),
              "no record gives one of its devices to another claim"),
          new ReservationMove(Optional.of(Proposed), Optional.empty(), "never refused"),
          new ReservationMove(Optional.of(Held), Optional.empty(), "never refused"));

  /**
   * The rule that refuses writing {@code next} over {@code was} (empty: it is being added); empty
   * where the change is a move or keeps the reservation as it is.
   */
  public static Optional<ReservationRule> refusal(
      Optional<GangReservation> was, GangReservation next) {
    if (was.isEmpty()) {
      return next.phase() == Proposed
          ? Optional.empty()
          : Optional.of(ReservationRule.WRITTEN_PROPOSED);
    }
    if (!was.get().withPhase(next.phase()).equals(next)) {
      return Optional.of(ReservationRule.ONE_DECISION);
    }
    if (was.get().phase() == Held && next.phase() == Proposed) {
      return Optional.of(ReservationRule.HELD_UNTIL_REMOVED);
    }
    return Optional.empty();
  }

  /**
   * Whether writing {@code next} over {@code was} is a move the store judges against the records.
   */
  public static boolean checksRecords(Optional<GangReservation> was, GangReservation next) {
    return was.map(w -> w.phase() == Proposed && next.phase() == Held).orElse(true);
  }

  /** The proposed reservation {@code r}, held: the allocator's second write. */
  public static GangReservation held(GangReservation r) {
    if (r.phase() != Proposed) {
      throw new ApiException(
          Reason.Conflict,
          "reservation "
              + r.key()
              + ": "
              + r.phase()
              + " → "
              + Held
              + " refused: only a proposed reservation is held");
    }
    return r.withPhase(Held);
  }
}
