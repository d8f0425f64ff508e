package dev.quartermaster.agent.ledger;

/** What {@link ClaimLedger#complete} did. */
public sealed interface CompleteResult {

  boolean changed();

  /** The claim is {@code PrepareCompleted} (now, or already was). */
  record Completed(ClaimState.PrepareCompleted entry, boolean changed) implements CompleteResult {}

  /**
   * The claim was unprepared while its prepare was in flight: the caller must undo its node-side
   * work (remove the CDI spec it just wrote) and report the prepare as failed.
   */
  record Aborted(ClaimState.PrepareAborted tombstone) implements CompleteResult {
    @Override
    public boolean changed() {
      return false;
    }
  }

  /**
   * No prepare was started for this uid (or its tombstone already expired); undo as for Aborted.
   */
  record NotStarted(String uid) implements CompleteResult {
    @Override
    public boolean changed() {
      return false;
    }
  }
}
