package dev.quartermaster.store;

import java.util.List;

/**
 * If every compare holds, apply {@code onSuccess}; otherwise apply {@code onFailure} (usually
 * empty). Either way the whole transaction is atomic.
 */
public record Txn(List<Compare> compares, List<Op> onSuccess, List<Op> onFailure, Urgency urgency) {
  public Txn {
    compares = List.copyOf(compares);
    onSuccess = List.copyOf(onSuccess);
    onFailure = List.copyOf(onFailure);
    java.util.Objects.requireNonNull(urgency, "urgency");
  }

  public Txn(List<Compare> compares, List<Op> onSuccess, List<Op> onFailure) {
    this(compares, onSuccess, onFailure, Urgency.NOW);
  }

  /** A transaction with no failure branch. */
  public static Txn when(List<Compare> compares, List<Op> ops) {
    return new Txn(compares, ops, List.of());
  }

  /** This transaction, allowed to wait for others to share its commit. */
  public Txn mayWait() {
    return new Txn(compares, onSuccess, onFailure, Urgency.MAY_WAIT);
  }

  /**
   * Whether a transaction may wait a moment for others to share its commit. At 10,000 nodes the
   * agents' heartbeats are 1,000 writes a second, each alone in its commit, its fsync and its
   * bookkeeping; a store that commits in groups lets them ride together. Whoever waits is still
   * answered only once the commit is durable; a store that does not group ignores it.
   */
  public enum Urgency {
    /** Committed as soon as the store can (every write but a heartbeat). */
    NOW,
    /** May wait a bounded moment (the store says how long) for company. */
    MAY_WAIT
  }

  /** A condition on a key's current state. */
  public sealed interface Compare {
    String key();

    /**
     * The key's last modification revision equals {@code modRevision}; {@code 0} means "the key
     * does not exist".
     */
    record ModRevision(String key, long modRevision) implements Compare {}
  }

  /** A write inside a transaction. */
  public sealed interface Op {
    String key();

    /**
     * Who must hear of the change ({@link Audience}): said by the writer, carried to the watches'
     * events.
     */
    Audience audience();

    record Put(String key, byte[] value, Audience audience) implements Op {
      public Put {
        value = value.clone();
      }

      /** A put that concerns every routed watch. */
      public Put(String key, byte[] value) {
        this(key, value, Audience.EVERYONE);
      }
    }

    /** Deleting a key that does not exist is a no-op. */
    record Delete(String key, Audience audience) implements Op {
      /** A delete that concerns every routed watch. */
      public Delete(String key) {
        this(key, Audience.EVERYONE);
      }
    }
  }
}
