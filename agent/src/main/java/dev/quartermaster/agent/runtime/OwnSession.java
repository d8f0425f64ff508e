package dev.quartermaster.agent.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts a task's process in a session of its own ({@code setsid}), out of the agent's process
 * group: a terminal's Ctrl-C reaches the foreground group of {@code qm up} (the JVM and, without
 * this, every task it started), and a task must stop only as the agent stops it — SIGTERM, its
 * grace period, then SIGKILL — never by a signal meant for the agent. {@code setsid} execs the
 * command in place (a child of the JVM leads no group, so it does not fork): the process the agent
 * watches is the task's own.
 *
 * <p>Where {@code setsid} is not installed the task starts as before, in the agent's group.
 */
public final class OwnSession {
  private static final Optional<Path> SETSID =
      List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid")).stream()
          .filter(Files::isExecutable)
          .findFirst();

  private OwnSession() {}

  /** Whether {@link #of} starts a session of its own (and so a process group) for a task. */
  public static boolean available() {
    return SETSID.isPresent();
  }

  /** {@code command}, run in a session of its own where that can be done. */
  public static List<String> of(List<String> command) {
    if (SETSID.isEmpty()) {
      return command;
    }
    var out = new ArrayList<String>(command.size() + 1);
    out.add(SETSID.get().toString());
    out.addAll(command);
    return List.copyOf(out);
  }

  /**
   * Where {@code program} resolves on {@code path} (a name without a slash) or as given (with one);
   * empty if it is not an executable file. Checked before a start, since through {@code setsid} a
   * missing program is setsid's exit status, not a failure to start.
   */
  public static Optional<Path> resolve(String program, String path) {
    if (program.contains("/")) {
      var p = Path.of(program);
      return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    for (var dir : path.split(":")) {
      if (!dir.isEmpty()) {
        var p = Path.of(dir, program);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }
}
