package dev.quartermaster.api.workload;

/**
 * What happens to a group's template volumes when their slot goes away (scale-down, workload
 * deleted).
 */
public enum VolumeRetention {
  /** Deleted (through DeleteVolume) once their claims are free. */
  Delete,
  /** Kept; a later scale-up of the same ordinal uses it again. */
  Retain
}
