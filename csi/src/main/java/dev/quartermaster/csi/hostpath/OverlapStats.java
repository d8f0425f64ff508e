package dev.quartermaster.csi.hostpath;

/**
 * Counts of destructive controller calls: all that started, and those that found another in flight.
 */
public record OverlapStats(long destructiveCalls, long overlaps) {}
