package dev.quartermaster.agent.runtime;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The device check that runs as a container's first step: a POSIX shell loop that opens each node
 * read-only ({@code exec 3<"$d"} in a subshell), prints one line per node, stops at the first
 * failure with exit code {@value #FAILED_EXIT}, and otherwise prints {@link #ALL_OPENED} and {@code
 * exec}s the task's command. Paths and command travel as positional parameters, never spliced into
 * the script, so nothing in them is interpreted by the shell.
 *
 * <pre>
 * sh -c SCRIPT qm-device-check /dev/nvidiactl /dev/nvidia-uvm ... -- command args...
 * </pre>
 */
final class DeviceCheckScript {
  static final String PREFIX = "qm-device-check: ";
  static final String ALL_OPENED = PREFIX + "all opened";
  static final int FAILED_EXIT = 97;

  static final String SCRIPT =
      String.join(
          "\n",
          "for d in \"$@\"; do",
          "  shift",
          "  [ \"$d\" = -- ] && break",
          "  if err=$( (exec 3<\"$d\") 2>&1 ); then echo \"" + PREFIX + "opened $d\";",
          "  else echo \"" + PREFIX + "failed $d: $err\"; exit " + FAILED_EXIT + "; fi",
          "done",
          "echo '" + ALL_OPENED + "'",
          "exec \"$@\"");

  /** What a device path may look like here (no spaces or shell-significant characters). */
  private static final Pattern SAFE_PATH = Pattern.compile("/[A-Za-z0-9._+/-]*");

  private DeviceCheckScript() {}

  static boolean safePath(String path) {
    return SAFE_PATH.matcher(path).matches();
  }

  /** {@code /bin/sh -c SCRIPT qm-device-check <paths> -- <command>}. */
  static List<String> wrap(List<String> paths, List<String> command) {
    var args = new java.util.ArrayList<String>(List.of("/bin/sh", "-c", SCRIPT, "qm-device-check"));
    args.addAll(paths);
    args.add("--");
    args.addAll(command);
    return args;
  }

  /** A parsed check line. */
  sealed interface Line {
    record Opened(String path) implements Line {}

    record Failed(String path, String error, String detail) implements Line {}

    record AllOpened() implements Line {}
  }

  static Optional<Line> parse(String line) {
    if (line.equals(ALL_OPENED)) {
      return Optional.of(new Line.AllOpened());
    }
    if (line.startsWith(PREFIX + "opened ")) {
      return Optional.of(new Line.Opened(line.substring((PREFIX + "opened ").length())));
    }
    if (line.startsWith(PREFIX + "failed ")) {
      var rest = line.substring((PREFIX + "failed ").length());
      int colon = rest.indexOf(": ");
      var path = colon < 0 ? rest : rest.substring(0, colon);
      var detail = colon < 0 ? "" : rest.substring(colon + 2);
      // Shells differ in their prefix ("can't open", "cannot open", "line 1:"); the OS's words come
      // last.
      int last = detail.lastIndexOf(": ");
      var error = last < 0 ? detail : detail.substring(last + 2);
      return Optional.of(
          new Line.Failed(path, error.isBlank() ? "cannot open" : error.strip(), detail));
    }
    return Optional.empty();
  }
}
