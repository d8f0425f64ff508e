package dev.quartermaster.control.allocator;

/**
 * How a gang's members are packed onto nodes ({@link GangFit}). Best fit is what the allocator
 * does; first fit is here only so that {@code qm bench gangs} can measure, on the same control
 * plane, how many GPUs each strands (issue 32).
 */
public enum Packing {
  /**
   * Each member to the node with the fewest free devices that still holds it, and the domain with
   * the fewest free devices: whole free nodes stay whole for the next large gang.
   */
  BEST_FIT,
  /**
   * Each member to the first node by name that holds it, and the first domain by label value that
   * holds the gang: the comparison, not for use.
   */
  FIRST_FIT
}
