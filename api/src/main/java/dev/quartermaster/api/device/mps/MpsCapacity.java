package dev.quartermaster.api.device.mps;

/**
 * What an MPS GPU offers its shares, all told: 100 percent of its compute, its memory in whole GiB,
 * and at most {@code clients} shares at once.
 */
public record MpsCapacity(int computePercent, int memoryGiB, int clients) {
  /**
   * What a GPU no longer published as MPS is taken to offer (a share held since a change of mode):
   * its whole compute, no more clients than MPS serves, and memory unknown, so unbounded.
   */
  public static final MpsCapacity UNKNOWN =
      new MpsCapacity(100, Integer.MAX_VALUE, MpsShares.MAX_CLIENTS);
}
