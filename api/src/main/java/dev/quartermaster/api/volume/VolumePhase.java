package dev.quartermaster.api.volume;

/** Where a volume is in its life, as the volume controller last saw it. */
public enum VolumePhase {
  /** Not created in its plugin yet (no external id), or the create failed and is retried. */
  Pending,
  /** Created; claims may be granted. */
  Available,
  /** Being deleted: waiting for its claims to be freed, then DeleteVolume. */
  Deleting
}
