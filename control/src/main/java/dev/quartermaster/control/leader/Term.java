package dev.quartermaster.control.leader;

/**
 * One leader's term: its epoch, and its fencing token, the revision at which the new leader wrote
 * {@code fenceKey} when the term began. A write that compares {@code fenceKey} with {@code
 * fenceRevision} in its own store transaction lands only while no later term has begun.
 */
public record Term(long epoch, String fenceKey, long fenceRevision) {}
