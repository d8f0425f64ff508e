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
}
