package dev.quartermaster.api.volume;

/**
 * What {@link VolumeClaimMachine#apply} makes of a claim: the claim moved, or the rule that refuses
 * it.
 */
public sealed interface VolumeClaimMove {

  /** The claim after the event; in state {@code Free} it leaves the volume's list. */
  record Moved(VolumeClaim claim) implements VolumeClaimMove {}

  /** The event cannot happen to the claim in its state; {@code rule} says why. */
  record Refused(String rule) implements VolumeClaimMove {}

  /**
   * The moved claim, where the event was decided from the claim's own state (a refusal is a bug).
   */
  default VolumeClaim orThrow() {
    return switch (this) {
      case Moved m -> m.claim();
      case Refused r -> throw new IllegalStateException(r.rule());
    };
  }

  /**
   * The moved claim, or {@code unchanged} where the claim has moved on meanwhile: an outcome of a
   * call made for an earlier state, or a write decided on a read that is no longer current.
   */
  default VolumeClaim orElse(VolumeClaim unchanged) {
    return switch (this) {
      case Moved m -> m.claim();
      case Refused r -> unchanged;
    };
  }
}
