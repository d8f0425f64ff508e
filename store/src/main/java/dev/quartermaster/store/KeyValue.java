package dev.quartermaster.store;

import java.util.Arrays;
import java.util.Objects;

/**
 * One key's value at some revision.
 *
 * @param createRevision the revision of the put that created this incarnation of the key
 * @param modRevision the revision of its last put (or, in a delete event, of the delete)
 * @param version how many puts this incarnation has seen (1 after create)
 */
public record KeyValue(String key, byte[] value, long createRevision, long modRevision, long version) {
  public KeyValue {
    Objects.requireNonNull(key, "key");
    value = value == null ? new byte[0] : value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** Whether the value is {@code other}'s bytes, without copying it (a watch event is compared by each of hundreds of watches). */
  public boolean valueEquals(byte[] other) {
    return Arrays.equals(value, other);
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
    return "KeyValue[" + key + " create=" + createRevision + " mod=" + modRevision + " v=" + version
        + " " + value.length + "B]";
  }
}
