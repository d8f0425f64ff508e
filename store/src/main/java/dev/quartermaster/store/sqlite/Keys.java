package dev.quartermaster.store.sqlite;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Keys are stored as UTF-8 BLOBs, so SQLite orders them bytewise exactly as etcd does, and a prefix
 * becomes the half-open byte range {@code [prefix, prefixEnd)} that the key index serves.
 */
final class Keys {
  private Keys() {}

  static byte[] encode(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  static String decode(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  /**
   * The smallest byte string greater than every string that starts with {@code prefix}; empty when
   * there is none (the empty prefix, or one made only of 0xFF bytes), i.e. no upper bound.
   */
  static Optional<byte[]> prefixEnd(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return Optional.of(end);
      }
    }
    return Optional.empty();
  }
}
