package dev.quartermaster.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A command line as {@code qm} reads it, once, before anything runs it: the client flags given
 * before the command, as kubectl allows ({@code qm --server URL get nodes}), and the rest from the
 * command on. Both ways a command runs start from here: {@link dev.quartermaster.cli.fast.FastGet}
 * for a table listing, and the command tree, which takes {@link #forTree}. The launcher ({@code
 * ./qm}) looks only for the command word, to pick the JVM's options; its list of flags is this
 * one's ({@code InvocationTest} holds it to that).
 *
 * @param leadingFlags the client flags before the command, with their values ({@code --flag value}
 *     or {@code --flag=value}) and {@code --debug}
 * @param rest the command line from the first argument that is not such a flag
 */
public record Invocation(List<String> leadingFlags, List<String> rest) {
  /** Where the server is and how to reach it: flags every client command takes. */
  public static final Set<String> CLIENT_FLAGS =
      Set.of("--server", "--token-file", "--ca-file", "--context");

  /** The output format, which the client commands that print objects take. */
  public static final Set<String> OUTPUT_FLAGS = Set.of("-o", "--output");

  /** Stack traces of errors: every command inherits it. */
  public static final String DEBUG = "--debug";

  public Invocation {
    leadingFlags = List.copyOf(leadingFlags);
    rest = List.copyOf(rest);
  }

  public static Invocation read(String... args) {
    var leading = new ArrayList<String>();
    int i = 0;
    while (i < args.length) {
      var a = args[i];
      var name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (a.equals(DEBUG) || (takesValue(name) && a.contains("="))) {
        leading.add(a);
        i++;
      } else if (takesValue(a) && i + 1 < args.length) {
        leading.add(a);
        leading.add(args[i + 1]);
        i += 2;
      } else {
        break;
      }
    }
    return new Invocation(leading, List.of(args).subList(i, args.length));
  }

  /** The command's name, when the line names one (not a flag such as {@code --version}). */
  public Optional<String> command() {
    return rest.isEmpty() || rest.getFirst().startsWith("-")
        ? Optional.empty()
        : Optional.of(rest.getFirst());
  }

  /**
   * The line for the command tree: the leading flags moved behind the command, before a {@code --}
   * if there is one, where the command accepts them or refuses them by name as usual. With no
   * command to move them behind, the line as given: picocli says what is wrong.
   */
  public String[] forTree() {
    var line = new ArrayList<>(rest);
    if (rest.isEmpty()) {
      line.addAll(leadingFlags);
    } else {
      int end = line.indexOf("--");
      line.addAll(end < 0 ? line.size() : end, leadingFlags);
    }
    return line.toArray(String[]::new);
  }

  private static boolean takesValue(String flag) {
    return CLIENT_FLAGS.contains(flag) || OUTPUT_FLAGS.contains(flag);
  }
}
