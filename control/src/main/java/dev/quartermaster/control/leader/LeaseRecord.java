package dev.quartermaster.control.leader;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;

/**
 * What the lease key holds.
 *
 * @param holder the identity of the leader
 * @param renewMillis when it last renewed, by its own clock (for people; candidates time the lease
 *     with their own clock from when they saw the record change)
 * @param epoch the fencing epoch: raised by one on every change of holder
 */
public record LeaseRecord(String holder, long renewMillis, long leaseMillis, long epoch) {

  public byte[] encode() {
    return ("holder="
            + holder
            + "\nrenewMillis="
            + renewMillis
            + "\nleaseMillis="
            + leaseMillis
            + "\nepoch="
            + epoch
            + "\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Decodes a record; a value this code did not write is a loud error, never a silent takeover. */
  public static LeaseRecord decode(byte[] bytes) {
    var fields = new HashMap<String, String>();
    for (var line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    try {
      return new LeaseRecord(
          fields.getOrDefault("holder", ""),
          Long.parseLong(fields.get("renewMillis")),
          Long.parseLong(fields.get("leaseMillis")),
          Long.parseLong(fields.get("epoch")));
    } catch (RuntimeException e) {
      throw new IllegalStateException("lease record does not decode: " + fields, e);
    }
  }
}
