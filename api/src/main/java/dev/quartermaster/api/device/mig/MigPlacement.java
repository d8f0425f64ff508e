package dev.quartermaster.api.device.mig;

/**
 * One possible GPU instance: a profile at one of its start positions.
 *
 * @param start a memory-slice position the profile may start at
 */
public record MigPlacement(MigProfile profile, int start) {
  public MigPlacement {
    if (!profile.starts().contains(start)) {
      throw new IllegalArgumentException(
          profile.label() + " cannot start at " + start + ": " + profile.placementText());
    }
  }

  /** The memory-slice positions it occupies, as bits (bit i: position i). */
  public int mask() {
    return ((1 << profile.memorySlices()) - 1) << start;
  }

  /** Whether the two share a memory-slice position. */
  public boolean overlaps(MigPlacement other) {
    return (mask() & other.mask()) != 0;
  }

  @Override
  public String toString() {
    return profile.label() + "@" + start;
  }
}
