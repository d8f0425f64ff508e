package dev.quartermaster.api.gang;

import java.util.Objects;

/**
 * A gang's state in its workload's status.
 *
 * @param state placed, or waiting holding nothing
 * @param reason why it waits ({@code WaitingForGang}, or a claim's refusal such as {@code
 *     NoSuchDeviceClass}); empty when placed
 * @param message what a person needs to know: what it needs, what fits now
 */
public record GangStatus(GangState state, String reason, String message) {
  public GangStatus {
    Objects.requireNonNull(state, "state");
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
  }
}
