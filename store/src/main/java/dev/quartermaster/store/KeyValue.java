package dev.quartermaster.store;

import java.util.Arrays;
import java.util.Objects;

/**
 * One key's value at some revision. Immutable: the constructor copies the value in and {@link
 * #value} copies it out. A class rather than a record so that a store handing on bytes it has just
 * read can give them away ({@link #owning}), and a cache can compare two values without copying
 * either ({@link #sameValue}): every object read, watched or listed passes through here, and those
 * copies were a tenth of all the bytes the end-to-end bench allocated.
 */
public final class KeyValue {
  private final String key;
  private final byte[] value;
  private final long createRevision;
  private final long modRevision;
  private final long version;

  /**
   * @param createRevision the revision of the put that created this incarnation of the key
   * @param modRevision the revision of its last put (or, in a delete event, of the delete)
   * @param version how many puts this incarnation has seen (1 after create)
   */
  public KeyValue(String key, byte[] value, long createRevision, long modRevision, long version) {
    this(
        key,
        value == null ? new byte[0] : value.clone(),
        createRevision,
        modRevision,
        version,
        true);
  }

  private KeyValue(
      String key,
      byte[] owned,
      long createRevision,
      long modRevision,
      long version,
      boolean unused) {
    this.key = Objects.requireNonNull(key, "key");
    this.value = owned;
    this.createRevision = createRevision;
    this.modRevision = modRevision;
    this.version = version;
  }

  /**
   * A key value that takes {@code value} over without copying it: for a store handing on bytes it
   * has just read and holds no other reference to. The caller must never touch the array again.
   */
  public static KeyValue owning(
      String key, byte[] value, long createRevision, long modRevision, long version) {
    return new KeyValue(
        key, Objects.requireNonNull(value, "value"), createRevision, modRevision, version, true);
  }

  public String key() {
    return key;
  }

  /** A copy of the value's bytes. */
  public byte[] value() {
    return value.clone();
  }

  public long createRevision() {
    return createRevision;
  }

  public long modRevision() {
    return modRevision;
  }

  public long version() {
    return version;
  }

  /**
   * Whether the value is {@code other}'s bytes, without copying it (a watch event is compared by
   * each of hundreds of watches).
   */
  public boolean valueEquals(byte[] other) {
    return Arrays.equals(value, other);
  }

  /** Whether {@code other} holds the same bytes, without copying either. */
  public boolean sameValue(KeyValue other) {
    return Arrays.equals(value, other.value);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyValue k
        && k.key.equals(key)
        && Arrays.equals(k.value, value)
        && k.createRevision == createRevision
        && k.modRevision == modRevision
        && k.version == version;
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, Arrays.hashCode(value), createRevision, modRevision, version);
  }

  @Override
  public String toString() {
    return "KeyValue["
        + key
        + " create="
        + createRevision
        + " mod="
        + modRevision
        + " v="
        + version
        + " "
        + value.length
        + "B]";
  }
}
