package dev.quartermaster.bench;

/**
 * What one replay of a {@link MigStream} took and refused within the measured day: compute- and
 * memory-slice-seconds held, requests, refusals, those the fleet's free slices summed would have
 * held, and those one GPU had the room for. The one accounting every row of {@code qm bench mig} is
 * read with.
 */
final class MigTally {
  private static final double FROM = MigStream.WARM_UP_S;
  private static final double TO = FROM + MigStream.DAY_S;

  private double compute;
  private double memory;
  private int requests;
  private int refused;
  private int fragmented;
  private int fitFleet;

  /** {@code r} was placed, taking {@code computeSlices} and {@code memorySlices} until it ends. */
  void placed(MigStream.Request r, int computeSlices, int memorySlices) {
    requests += measured(r) ? 1 : 0;
    double held = Math.max(0, Math.min(r.at() + r.holdS(), TO) - Math.max(r.at(), FROM));
    compute += computeSlices * held;
    memory += memorySlices * held;
  }

  /**
   * {@code r} was refused; {@code fitFleet}: the fleet's free compute and memory slices, summed
   * over its GPUs, would have held it (issue 46's "would have fit in total free capacity"); {@code
   * fragmentation}: one GPU had that room, in the wrong places.
   */
  void refused(MigStream.Request r, boolean fitFleet, boolean fragmentation) {
    boolean counted = measured(r);
    requests += counted ? 1 : 0;
    refused += counted ? 1 : 0;
    this.fitFleet += counted && fitFleet ? 1 : 0;
    fragmented += counted && fragmentation ? 1 : 0;
  }

  private static boolean measured(MigStream.Request r) {
    return r.at() >= FROM;
  }

  /**
   * Utilization and memory as shares of what {@code gpus} GPUs of {@code compute}/{@code memory}
   * slices offer.
   */
  double[] shares(int gpus, int computeSlices, int memorySlices) {
    double offered = (double) gpus * computeSlices * MigStream.DAY_S;
    return new double[] {
      compute / offered, memory / ((double) gpus * memorySlices * MigStream.DAY_S)
    };
  }

  int requests() {
    return requests;
  }

  int refusedCount() {
    return refused;
  }

  int fitFleet() {
    return fitFleet;
  }

  int fragmented() {
    return fragmented;
  }
}
