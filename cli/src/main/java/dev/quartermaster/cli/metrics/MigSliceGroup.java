package dev.quartermaster.cli.metrics;

/**
 * The labels of one {@code qm_mig_slices} series.
 *
 * @param held true: slices of the profile held; false: slices of it a claim could still get
 */
public record MigSliceGroup(String node, String gpu, String profile, boolean held) {
  public String state() {
    return held ? "held" : "free";
  }
}
