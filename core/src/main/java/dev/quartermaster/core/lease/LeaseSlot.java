package dev.quartermaster.core.lease;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * What leader election needs from the cluster's store, and nothing more: one key that candidates
 * read and compare-and-set on its revision. The controllers reach everything else through the API;
 * a store offers this beside it (SQLite's {@code StoreLeases} today).
 */
public interface LeaseSlot {

  /** A value as stored, with the revision a compare-and-set must name to replace it. */
  record Versioned(byte[] value, long revision) {
    public Versioned {
      value = value.clone();
    }

    @Override
    public byte[] value() {
      return value.clone();
    }
  }

  /** What {@code key} holds now, if anything. */
  Optional<Versioned> read(String key);

  /**
   * Writes {@code value} to {@code key} if it is still at {@code expectedRevision} ({@code 0}: it
   * must not exist); the new revision if it was, empty if someone else wrote first.
   */
  OptionalLong compareAndSet(String key, long expectedRevision, byte[] value);

  /**
   * Whether no other process can reach this slot's store while this one has it open (an embedded
   * store behind a file lock). A lease that names another holder was then left by a process that
   * has ended, and waiting for it to expire proves nothing.
   */
  default boolean exclusive() {
    return false;
  }
}
