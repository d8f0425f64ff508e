package dev.quartermaster.agent.ledger;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The ledger's states for one claim, all in one place. The only transitions are
 *
 * <pre>
 *   (none) ──prepare──▶ PrepareStarted ──complete──▶ PrepareCompleted
 *                            │                            │
 *                            └──────unprepare──────┬──────┘
 *                                                  ▼
 *                                           PrepareAborted ──TTL──▶ (none)
 * </pre>
 *
 * <p>{@link PrepareStarted} and {@link PrepareCompleted} hold their devices (and need their compute
 * domain); {@link PrepareAborted} is a tombstone that holds nothing and only refuses a late prepare
 * retry for the same uid until it expires.
 */
public sealed interface ClaimState {

  ClaimRef claim();

  /** The devices the claim was prepared with (for a tombstone: the ones it released). */
  List<String> devices();

  Optional<String> computeDomain();

  /** When the claim entered this state. */
  Instant since();

  /** Whether this entry holds its devices (and keeps its compute domain wanted). */
  default boolean holdsDevices() {
    return !(this instanceof PrepareAborted);
  }

  /** The state's name as written in the checkpoint and shown by {@code qm agent ledger show}. */
  default String stateName() {
    return getClass().getSimpleName();
  }

  /** Prepare began: devices are reserved; the node-side work (CDI spec) may be half done. */
  record PrepareStarted(
      ClaimRef claim, List<String> devices, Optional<String> computeDomain, Instant since)
      implements ClaimState {
    public PrepareStarted {
      Objects.requireNonNull(claim, "claim");
      devices = List.copyOf(devices);
      Objects.requireNonNull(computeDomain, "computeDomain");
      Objects.requireNonNull(since, "since");
    }
  }

  /** Prepare finished: the claim's containers get {@code cdiDevices}. */
  record PrepareCompleted(
      ClaimRef claim,
      List<String> devices,
      Optional<String> computeDomain,
      Instant since,
      List<String> cdiDevices)
      implements ClaimState {
    public PrepareCompleted {
      Objects.requireNonNull(claim, "claim");
      devices = List.copyOf(devices);
      Objects.requireNonNull(computeDomain, "computeDomain");
      Objects.requireNonNull(since, "since");
      cdiDevices = List.copyOf(cdiDevices);
    }
  }

  /**
   * Unprepared: a tombstone kept until {@code expiresAt}, so that a prepare retry still in flight
   * from before the unprepare cannot bring the claim back.
   */
  record PrepareAborted(
      ClaimRef claim,
      List<String> devices,
      Optional<String> computeDomain,
      Instant since,
      Instant expiresAt)
      implements ClaimState {
    public PrepareAborted {
      Objects.requireNonNull(claim, "claim");
      devices = List.copyOf(devices);
      Objects.requireNonNull(computeDomain, "computeDomain");
      Objects.requireNonNull(since, "since");
      Objects.requireNonNull(expiresAt, "expiresAt");
    }
  }
}
