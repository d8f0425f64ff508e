package dev.quartermaster.agent.effects;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * When a process started, exactly: field 22 of {@code /proc/<pid>/stat}, in clock ticks since boot,
 * with the boot's id. A pid is reused, but never by a process that started at the same tick of the
 * same boot, so a recorded pid with its start is adopted only by the very process it named.
 *
 * <p>The pid is the one of the {@code /proc} read: in the DaemonSet ({@code hostPID: true}) the
 * host's, which is also what {@link ProcessHandle#pid()} says there.
 */
public record ProcessStart(long ticks, String bootId) {

  /** The start of {@code pid} as {@code proc} says, if it runs and its stat can be read. */
  public static Optional<ProcessStart> of(Path proc, long pid, String bootId) {
    try {
      return parseTicks(
              Files.readString(
                  proc.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8))
          .map(ticks -> new ProcessStart(ticks, bootId));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Field 22 ({@code starttime}) of a stat line; the command (field 2) may hold spaces and
   * parentheses, so the fields are counted from its last {@code )}.
   */
  static Optional<Long> parseTicks(String stat) {
    var end = stat.lastIndexOf(')');
    if (end < 0) {
      return Optional.empty();
    }
    var fields = stat.substring(end + 1).strip().split("\\s+");
    // fields[0] is field 3 (state), so field 22 is fields[19].
    if (fields.length < 20) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(fields[19]));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** {@code 123456@<boot-id>}, as a pid file keeps it. */
  @Override
  public String toString() {
    return ticks + "@" + bootId;
  }

  /** Reads {@link #toString()}'s form back. */
  public static Optional<ProcessStart> parse(String text) {
    var at = text.indexOf('@');
    if (at <= 0 || at == text.length() - 1) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new ProcessStart(Long.parseLong(text.substring(0, at)), text.substring(at + 1)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
