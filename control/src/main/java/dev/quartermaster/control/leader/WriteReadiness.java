package dev.quartermaster.control.leader;

import java.util.Optional;

/**
 * Whether this process's controllers can write now, and if not, why: what {@code /readyz} and
 * {@code qm_controllers_writable} report. A process that stands by is ready (it serves the API and
 * will campaign); a leader is ready only while its lease is renewed, its controllers write under
 * the term it holds, and the store has refused none of their writes as fenced in that term.
 *
 * @param leading whether this process holds the controllers' lease
 * @param ready whether the controllers can write (always, while standing by)
 * @param message for people: the term, or exactly what stops the writes
 */
public record WriteReadiness(boolean leading, boolean ready, String message) {

  /**
   * Judges from what the elector knows, the term the controllers' writes carry, and how many of
   * them the store refused as fenced in that term.
   */
  public static WriteReadiness judge(
      LeaderElector.Standing standing, Optional<Term> writingUnder, long fencedThisTerm) {
    if (!standing.holds()) {
      return new WriteReadiness(
          false,
          true,
          standing
              .term()
              .map(t -> "the controllers stand by: the term of epoch " + t.epoch() + " ended")
              .orElse("the controllers stand by: another server's lead, or none has yet"));
    }
    var term = standing.term().orElseThrow();
    if (standing.sinceRenewal().compareTo(standing.renewDeadline()) >= 0) {
      return new WriteReadiness(
          true,
          false,
          "the controllers cannot write: no lease renewal for "
              + standing.sinceRenewal().toMillis()
              + " ms (the renew deadline is "
              + standing.renewDeadline().toMillis()
              + " ms): the store does not answer, or this process was paused");
    }
    if (writingUnder.map(w -> w.epoch() != term.epoch()).orElse(true)) {
      return new WriteReadiness(
          true,
          false,
          "the controllers cannot write: they write under "
              + writingUnder.map(w -> "epoch " + w.epoch() + "'s token").orElse("no term")
              + " while this process leads epoch "
              + term.epoch());
    }
    if (fencedThisTerm > 0) {
      return new WriteReadiness(
          true,
          false,
          "the controllers cannot write: the store refused "
              + fencedThisTerm
              + " of their writes as fenced since epoch "
              + term.epoch()
              + " began (a newer term began elsewhere)");
    }
    return new WriteReadiness(
        true,
        true,
        "the controllers lead: epoch "
            + term.epoch()
            + ", writes fenced at revision "
            + term.fenceRevision()
            + " of "
            + term.fenceKey());
  }
}
