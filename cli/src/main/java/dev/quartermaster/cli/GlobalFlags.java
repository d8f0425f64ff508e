package dev.quartermaster.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Lets the flags every client command takes come before the command, as kubectl allows: {@code qm
 * --server URL get nodes} runs as {@code qm get nodes --server URL}. Only the leading flags in
 * {@link #WITH_VALUE} are moved (with their values, as {@code --flag value} or {@code
 * --flag=value}), to the end of the command line, before a {@code --} if there is one; the command
 * then accepts them or refuses them by name as usual. {@code --debug} needs no moving: every
 * command inherits it.
 */
final class GlobalFlags {
  /** Flags taken before the command, each followed by a value. */
  static final Set<String> WITH_VALUE =
      Set.of("--server", "--token-file", "--ca-file", "--context", "-o", "--output");

  private GlobalFlags() {}

  static String[] hoist(String... args) {
    var moved = new ArrayList<String>();
    int i = 0;
    while (i < args.length) {
      var a = args[i];
      var name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (a.equals("--debug")) {
        moved.add(a);
        i++;
      } else if (WITH_VALUE.contains(name) && a.contains("=")) {
        moved.add(a);
        i++;
      } else if (WITH_VALUE.contains(a) && i + 1 < args.length) {
        moved.add(a);
        moved.add(args[i + 1]);
        i += 2;
      } else {
        break;
      }
    }
    if (moved.isEmpty() || i == args.length) {
      return args; // nothing to move, or no command to move it behind: picocli says what is wrong
    }
    var rest = new ArrayList<>(List.of(args).subList(i, args.length));
    int end = rest.indexOf("--");
    rest.addAll(end < 0 ? rest.size() : end, moved);
    return rest.toArray(String[]::new);
  }
}
