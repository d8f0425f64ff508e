package dev.quartermaster.cli.metrics;

/** One MIG GPU of one node: the labels of {@code qm_mig_free_compute_slices} and co. */
public record MigGpuKey(String node, String gpu) {}
