package dev.quartermaster.api;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A state machine's moves as a table test writes them out, one line a mover and a state: {@code
 * MOVER from → to to ...}.
 */
public final class MoveTable {
  private MoveTable() {}

  /** {@code table}'s moves as "MOVER from to" strings. */
  public static Set<String> parse(String table) {
    var out = new HashSet<String>();
    for (var line : table.strip().split("\n")) {
      var parts = line.trim().split("\\s*→\\s*");
      var left = parts[0].trim().split("\\s+");
      Arrays.stream(parts[1].trim().split("\\s+"))
          .forEach(to -> out.add(left[0] + " " + left[1] + " " + to));
    }
    return out;
  }
}
