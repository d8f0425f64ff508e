package dev.quartermaster.cli.metrics;

/**
 * The replicas of one time-sliced GPU in one state, for {@code qm_shared_replicas}.
 *
 * @param state {@code held} (a claim is allocated it) or {@code free}
 */
record ReplicaGroup(String node, String gpu, String state) {}
