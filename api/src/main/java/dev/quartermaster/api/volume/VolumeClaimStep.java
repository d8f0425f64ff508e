package dev.quartermaster.api.volume;

/**
 * What the volume controller does next for one claim: a status edit with no call, a call to the
 * plugin's controller, or nothing yet (with why). Decided only by {@link VolumeClaimMachine#next};
 * what each done step makes of the claim is {@link VolumeClaimMachine#apply}'s.
 */
public sealed interface VolumeClaimStep {

  /** Taken, holder live, plugin publishes: ControllerPublishVolume to the holder's node. */
  record Publish() implements VolumeClaimStep {}

  /** Taken, holder live, plugin has no controller publish: attached at once. */
  record AttachWithoutCall() implements VolumeClaimStep {}

  /** Taken and in use: nothing to do. */
  record Hold() implements VolumeClaimStep {}

  /** Taken, the node was fenced or deleted: its part is released on its behalf. */
  record NodeDetachOnBehalf(String why) implements VolumeClaimStep {}

  /** Taken, holder gone: waiting for the node's agent to unpublish and unstage. */
  record AwaitNode(String why) implements VolumeClaimStep {}

  /** NodeDetached and attached: ControllerUnpublishVolume from the node. */
  record Unpublish() implements VolumeClaimStep {}

  /** NodeDetached, never attached (or no controller publish): ControllerDetached at once. */
  record DetachWithoutCall() implements VolumeClaimStep {}

  /** ControllerDetached: removed from the list (Free). */
  record Free() implements VolumeClaimStep {}
}
