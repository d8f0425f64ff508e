package dev.quartermaster.agent.ledger;

import java.time.Instant;
import java.util.List;

/** What {@link ClaimLedger#prepare} decided. */
public sealed interface PrepareResult {

  /** Whether the ledger changed (and must be persisted before anyone is told). */
  boolean changed();

  /**
   * The devices are reserved for the claim ({@code PrepareStarted} is in the ledger): do the
   * node-side work, then call {@link ClaimLedger#complete}. Also returned for a retry of a prepare
   * that was started and not completed, because that work is idempotent.
   */
  record Started(ClaimState.PrepareStarted entry, boolean changed) implements PrepareResult {}

  /** Already completed: the same devices and CDI names as the first time (idempotent). */
  record AlreadyPrepared(ClaimState.PrepareCompleted entry) implements PrepareResult {
    @Override
    public boolean changed() {
      return false;
    }
  }

  /**
   * Refused, retryably: {@code device} is held by {@code holder}, another claim that is started or
   * completed. Retry once the holder is unprepared.
   */
  record Held(
      String device,
      ClaimRef holder,
      ClaimState holderState,
      java.util.Optional<dev.quartermaster.api.device.use.Clash.Overload> over)
      implements PrepareResult {
    public Held(String device, ClaimRef holder, ClaimState holderState) {
      this(device, holder, holderState, java.util.Optional.empty());
    }

    @Override
    public boolean changed() {
      return false;
    }

    /**
     * "device gpu-0 is held by claim 7f3c… (train-a)", with the shared counter the two would take
     * past what there is, if that is why.
     */
    public String reason() {
      return "device "
          + device
          + " is held by claim "
          + holder
          + " ("
          + holderState.stateName()
          + ")"
          + over.map(o -> ", and together they would take " + o).orElse("");
    }
  }

  /**
   * Refused: the claim was unprepared at {@code since}; this is a late retry of a prepare from
   * before that. A prepare for this uid is accepted again after {@code expiresAt}.
   */
  record Aborted(ClaimRef claim, Instant since, Instant expiresAt) implements PrepareResult {
    @Override
    public boolean changed() {
      return false;
    }

    public String reason() {
      return "claim "
          + claim
          + " was unprepared at "
          + since
          + "; a prepare for it is refused until "
          + expiresAt;
    }
  }

  /**
   * Refused, permanently: the claim is already prepared or started with other devices. A claim's
   * allocation does not change under one uid, so this is a caller bug or a re-used uid.
   */
  record Mismatch(ClaimRef claim, List<String> held, List<String> requested)
      implements PrepareResult {
    @Override
    public boolean changed() {
      return false;
    }

    public String reason() {
      return "claim " + claim + " is already prepared with devices " + held + ", not " + requested;
    }
  }
}
