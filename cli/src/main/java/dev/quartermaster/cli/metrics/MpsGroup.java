package dev.quartermaster.cli.metrics;

/**
 * One resource of one MPS GPU in one state, for {@code qm_mps_capacity}.
 *
 * @param resource {@code compute_percent}, {@code memory_gib} or {@code clients}
 * @param state {@code held} (by its shares) or {@code free}
 */
record MpsGroup(String node, String gpu, String resource, String state) {}
