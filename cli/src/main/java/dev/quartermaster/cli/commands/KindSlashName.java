package dev.quartermaster.cli.commands;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * A command line's KIND and NAMEs as kubectl users write them: {@code get task a b}, or {@code get
 * task/a task/b} (every name then of the first one's kind).
 */
record KindSlashName(String kind, List<String> names) {
  KindSlashName {
    names = List.copyOf(names);
  }

  /** {@code first} (KIND or KIND/NAME) and {@code rest}; a name of another kind is refused. */
  static KindSlashName split(String first, List<String> rest, CommandLine line) {
    var names = new ArrayList<String>();
    var kind = first;
    int slash = first.indexOf('/');
    if (slash >= 0) {
      kind = first.substring(0, slash);
      names.add(first.substring(slash + 1));
    }
    for (var n : rest) {
      int s = n.indexOf('/');
      if (s < 0) {
        if (slash >= 0) {
          throw new ParameterException(
              line, "'" + n + "': after " + first + ", name every object as KIND/NAME");
        }
        names.add(n);
      } else if (slash < 0) {
        throw new ParameterException(
            line, "'" + n + "': a KIND/NAME after the kind " + first + "; give NAME alone");
      } else if (!sameKind(n.substring(0, s), kind)) {
        throw new ParameterException(
            line, "'" + n + "': every object must be of the first one's kind, " + kind);
      } else {
        names.add(n.substring(s + 1));
      }
    }
    if (names.stream().anyMatch(String::isEmpty)) {
      throw new ParameterException(line, "an empty NAME in " + first + " " + rest);
    }
    return new KindSlashName(kind, names);
  }

  private static boolean sameKind(String a, String b) {
    try {
      return KindNames.resolve(a).equals(KindNames.resolve(b));
    } catch (RuntimeException e) {
      return false;
    }
  }
}
