package dev.quartermaster.cli.format;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A command line as a shell user would type it: arguments with spaces or quotes are single-quoted.
 */
public final class CommandText {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,+@%-]+");

  private CommandText() {}

  public static String of(List<String> argv) {
    return argv.stream().map(CommandText::quote).collect(Collectors.joining(" "));
  }

  private static String quote(String arg) {
    return PLAIN.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'";
  }
}
