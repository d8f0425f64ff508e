package dev.quartermaster.api.device.mig;

/** The answer of a {@link MigPlacementRule}: where to create the instance, or why nowhere. */
public sealed interface MigChoice {
  /** Create {@code placement} on GPU {@code gpu}. */
  record Place(String gpu, MigPlacement placement) implements MigChoice {}

  /** Nowhere, and why, in an operator's words. */
  record Refused(Refusal refusal, String reason) implements MigChoice {}

  /** Why a request was refused. */
  enum Refusal {
    /** No GPU offers the profile asked for. */
    NO_SUCH_PROFILE,
    /** No GPU has that much compute and memory free. */
    NO_CAPACITY,
    /** Some GPU has that much free, but not at a position the profile may start at. */
    FRAGMENTED
  }
}
