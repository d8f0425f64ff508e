package dev.quartermaster.cli.metrics;

/** The labels of one per-class queue series ({@code qm_queue_used_devices}, …). */
public record QueueClass(String queue, String deviceClass) {}
