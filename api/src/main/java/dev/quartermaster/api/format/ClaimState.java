package dev.quartermaster.api.format;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import java.util.Locale;

/**
 * Where a claim is in its life, in one word: pending → allocated → prepared (or failed to prepare).
 */
public enum ClaimState {
  PENDING,
  ALLOCATED,
  PREPARED,
  FAILED;

  public static ClaimState of(ResourceClaim claim) {
    var allocation = claim.status().allocation();
    if (allocation.isEmpty()) {
      return PENDING;
    }
    // Only the allocated node's prepare state counts; others are leftovers of an earlier
    // allocation.
    var prepare = claim.status().prepare().get(allocation.get().node());
    if (prepare == null) {
      return ALLOCATED;
    }
    return switch (prepare.phase()) {
      case Prepared -> PREPARED;
      case Failed -> FAILED;
      case Pending, Unprepared -> ALLOCATED;
    };
  }

  /** The prepare state on the allocated node, if the agent reported one. */
  public static java.util.Optional<PrepareState> preparation(ResourceClaim claim) {
    return claim.status().allocation().map(a -> claim.status().prepare().get(a.node()));
  }

  /**
   * Why the claim is not prepared, in the words of whoever holds it up: the agent's prepare reason
   * once it is allocated, else the allocator's {@code Allocated=False} message. Empty when nothing
   * waits.
   */
  public static String reason(ResourceClaim claim) {
    var prepared = preparation(claim).map(PrepareState::reason).filter(r -> !r.isEmpty());
    if (prepared.isPresent()) {
      return prepared.get();
    }
    return dev.quartermaster.api.meta.Condition.find(
            claim.status().conditions(), ClaimConditions.ALLOCATED)
        .filter(c -> !c.isTrue())
        .map(c -> c.reason() + ": " + c.message())
        .orElse("");
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
