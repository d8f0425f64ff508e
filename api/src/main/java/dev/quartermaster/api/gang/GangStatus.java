package dev.quartermaster.api.gang;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A gang's state in its workload's status.
 *
 * @param state placed, partly placed, waiting holding nothing, or finished
 * @param reason why it waits ({@code WaitingForGang}, or a claim's refusal such as {@code
 *     NoSuchDeviceClass}); empty when placed
 * @param message what a person needs to know: what it needs, what fits now
 * @param since when it entered this state: kept while the state stays, whatever the reason, so a
 *     wait is timed from its start
 */
public record GangStatus(GangState state, String reason, String message, Optional<Instant> since) {
  /**
   * The reason of a gang that does not fit at once, or whose members do not all exist yet; the
   * allocator writes it on the members' claims too.
   */
  public static final String WAITING_FOR_GANG = "WaitingForGang";

  /** The reason of a gang whose workload its queue has not admitted: it waits for quota. */
  public static final String WAITING_FOR_ADMISSION = "WaitingForAdmission";

  /** The reason of a gang whose workload was evicted: its members stop. */
  public static final String EVICTED = "Evicted";

  /**
   * The reason of a gang that no node set of the fleet could ever hold, whatever it frees: it waits
   * for the fleet to change.
   */
  public static final String NEVER_FITS = "NeverFits";

  /** The reason of a gang placed for fewer members than it needs ({@link GangState#Partial}). */
  public static final String MEMBERS_MISSING = "MembersMissing";

  public GangStatus {
    Objects.requireNonNull(state, "state");
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    since = since == null ? Optional.empty() : since;
  }

  public GangStatus(GangState state, String reason, String message) {
    this(state, reason, message, Optional.empty());
  }

  /** Whether it waits, holding nothing. */
  @JsonIgnore
  public boolean isWaiting() {
    return state == GangState.Waiting;
  }

  /** Whether it waits for devices (or for its members to be made), not for its queue. */
  @JsonIgnore
  public boolean waitsForPlacement() {
    return isWaiting() && !reason.equals(WAITING_FOR_ADMISSION) && !reason.equals(EVICTED);
  }
}
