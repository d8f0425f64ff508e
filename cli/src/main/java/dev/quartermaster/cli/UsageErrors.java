package dev.quartermaster.cli;

import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What {@code qm} says of a command line it cannot read: one line naming what is wrong, the nearest
 * command or option where one was mistyped, and where the help is — not the 30 lines of usage
 * picocli prints by default. An unknown first word is an unknown command, never read as a later
 * word that is one ({@code qm describ node n1} is not {@code qm node}). Exit status 2.
 */
final class UsageErrors implements CommandLine.IParameterExceptionHandler {
  private final CommandLine top;

  UsageErrors(CommandLine top) {
    this.top = top;
  }

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    var err = ex.getCommandLine().getErr();
    var first = Invocation.read(args).command();
    var commands = top.getSubcommands().keySet();
    if (first.isPresent() && !commands.contains(first.get())) {
      err.println(
          "error: unknown command '"
              + first.get()
              + "'"
              + nearest(first.get(), commands).map(c -> "; did you mean '" + c + "'?").orElse("")
              + " (qm --help lists the commands)");
      err.flush();
      return 2;
    }
    err.println("error: " + ex.getMessage());
    if (ex instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
      err.println("did you mean: " + String.join(", ", u.getSuggestions()) + "?");
    }
    err.println("see: " + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help");
    err.flush();
    return 2;
  }

  /** The command nearest {@code typed}, if one is within two edits of it. */
  static Optional<String> nearest(String typed, Set<String> commands) {
    return commands.stream()
        .filter(c -> !c.equals("help"))
        .map(c -> new Object[] {c, distance(typed, c)})
        .filter(p -> (int) p[1] <= 2 || ((String) p[0]).startsWith(typed))
        .min(Comparator.comparingInt(p -> (int) p[1]))
        .map(p -> (String) p[0]);
  }

  /** The Levenshtein distance between {@code a} and {@code b}. */
  static int distance(String a, String b) {
    var previous = new int[b.length() + 1];
    var current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      var swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
