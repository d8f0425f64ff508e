package dev.quartermaster.cli.metrics;

/**
 * One limit of one MPS share, for {@code qm_mps_share_limit}.
 *
 * @param resource {@code compute_percent} or {@code memory_gib}
 */
record MpsShareKey(String node, String gpu, String share, String claim, String resource) {}
