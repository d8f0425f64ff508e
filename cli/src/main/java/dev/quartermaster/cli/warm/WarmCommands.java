package dev.quartermaster.cli.warm;

import dev.quartermaster.cli.Invocation;
import java.util.List;
import java.util.Set;

/**
 * Which command lines the warm client runs: the client commands that take a request or two and
 * print, whose wait is the JVM's start. The rest run in a JVM of their own, as without a warm
 * client: commands that run until stopped or wait for the cluster ({@code -w}, {@code --for},
 * {@code --wait}, {@code logs -f}: their start is not what a user waits for, and Ctrl-C must stop
 * them), commands that read standard input ({@code -f -}), and help (picocli colours it for a
 * terminal, which the warm client has not).
 */
public final class WarmCommands {
  private WarmCommands() {}

  /**
   * The command words the launcher offers the warm client (its list in {@code
   * cli/src/main/launcher/warm.bash}; {@code WarmLauncherTest} holds the two to each other).
   */
  public static final Set<String> WORDS =
      Set.of("get", "describe", "apply", "delete", "logs", "scale", "version", "config");

  private static final Set<String> WAITS =
      Set.of("-w", "--watch", "--watch-only", "--for", "--wait", "-h", "--help", "help");

  public static boolean serves(Invocation line) {
    var command = line.command();
    if (command.isEmpty() || !WORDS.contains(command.get())) {
      return false;
    }
    List<String> args = line.rest();
    for (var arg : args) {
      var name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (WAITS.contains(name) || arg.equals("-") || arg.endsWith("=-")) {
        return false;
      }
    }
    if (command.get().equals("logs")) {
      // -f, --follow, or -f among clustered short flags (-pf)
      return args.stream().noneMatch(a -> a.equals("--follow") || a.matches("-[a-z]*f[a-z]*"));
    }
    return true;
  }
}
