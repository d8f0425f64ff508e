package dev.quartermaster.control.allocator;

/**
 * Which {@link FitPolicy} packs gangs onto nodes, as the control plane's options name it. Best fit
 * is what the allocator does; first fit is here only so that {@code qm bench gangs} can measure, on
 * the same control plane, how many GPUs each strands (issue 32).
 */
public enum Packing {
  /** {@link BestFit}. */
  BEST_FIT,
  /** {@link FirstFit}: the comparison, not for use. */
  FIRST_FIT;

  FitPolicy policy() {
    return switch (this) {
      case BEST_FIT -> FitPolicy.BEST_FIT;
      case FIRST_FIT -> FitPolicy.FIRST_FIT;
    };
  }
}
