package dev.quartermaster.agent.ledger;

/** What {@link ClaimLedger#unprepare} did. Every variant is a success: unprepare is idempotent. */
public sealed interface UnprepareResult {

  boolean changed();

  /**
   * The claim held devices and now is a tombstone: persist, then remove its node-side state (CDI
   * spec). {@code previous} was {@code PrepareStarted} or {@code PrepareCompleted}.
   */
  record Released(ClaimState previous, ClaimState.PrepareAborted tombstone)
      implements UnprepareResult {
    @Override
    public boolean changed() {
      return true;
    }
  }

  /** Unprepared before; nothing to do. */
  record AlreadyUnprepared(ClaimState.PrepareAborted tombstone) implements UnprepareResult {
    @Override
    public boolean changed() {
      return false;
    }
  }

  /**
   * The ledger never saw this claim (or forgot its tombstone). Nothing is released, but a tombstone
   * is written all the same: the prepare this unprepare overtook may still arrive (the caller sent
   * it, gave up, and unprepared), and it must not prepare a claim the caller thinks is gone.
   */
  record NeverPrepared(ClaimState.PrepareAborted tombstone) implements UnprepareResult {
    @Override
    public boolean changed() {
      return true;
    }
  }
}
