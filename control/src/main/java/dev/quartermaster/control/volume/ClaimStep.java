package dev.quartermaster.control.volume;

/**
 * What the volume controller does next for one claim: a status edit with no call, a call to the
 * plugin's controller, or nothing yet (with why). Decided only by {@link ClaimMachine}.
 */
public sealed interface ClaimStep {

  /** Taken, holder live, plugin publishes: ControllerPublishVolume to the holder's node. */
  record Publish() implements ClaimStep {}

  /** Taken, holder live, plugin has no controller publish: attached at once. */
  record AttachWithoutCall() implements ClaimStep {}

  /** Taken and in use: nothing to do. */
  record Hold() implements ClaimStep {}

  /** Taken, the node was fenced or deleted: its part is released on its behalf. */
  record NodeDetachOnBehalf(String why) implements ClaimStep {}

  /** Taken, holder gone: waiting for the node's agent to unpublish and unstage. */
  record AwaitNode(String why) implements ClaimStep {}

  /** NodeDetached and attached: ControllerUnpublishVolume from the node. */
  record Unpublish() implements ClaimStep {}

  /** NodeDetached, never attached (or no controller publish): ControllerDetached at once. */
  record DetachWithoutCall() implements ClaimStep {}

  /** ControllerDetached: removed from the list (Free). */
  record Free() implements ClaimStep {}
}
