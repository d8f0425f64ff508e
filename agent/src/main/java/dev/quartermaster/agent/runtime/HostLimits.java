package dev.quartermaster.agent.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * This process's hard resource limits, from {@code /proc/self/limits}. Podman's default {@code
 * nofile} (1048576) is above the hard limit on some machines, and runc then fails with "error
 * setting rlimit type 7: operation not permitted"; passing the host's own hard limits works.
 */
public final class HostLimits {
  private HostLimits() {}

  /**
   * The hard limit named {@code what} ("Max open files", "Max processes"); empty if unlimited or
   * unknown.
   */
  public static OptionalLong hard(String what) {
    try {
      return parseHard(
          Files.readString(Path.of("/proc/self/limits"), StandardCharsets.UTF_8), what);
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  static OptionalLong parseHard(String limits, String what) {
    for (var line : limits.split("\n")) {
      if (line.startsWith(what)) {
        var fields = line.substring(what.length()).trim().split("\\s+");
        if (fields.length >= 2) {
          try {
            return OptionalLong.of(Long.parseLong(fields[1]));
          } catch (NumberFormatException e) {
            return OptionalLong.empty(); // "unlimited"
          }
        }
      }
    }
    return OptionalLong.empty();
  }
}
