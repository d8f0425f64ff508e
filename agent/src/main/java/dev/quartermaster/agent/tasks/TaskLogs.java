package dev.quartermaster.agent.tasks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The previous attempt's output: each start of a task writes {@code <task>.log} afresh, so the log
 * of the attempt before (an earlier incarnation of the same name on this node, e.g. of a
 * crash-looping worker) is first moved to {@code <task>.previous.log} beside it. Task names are DNS
 * labels (no dots), so the two never collide with another task's files.
 */
public final class TaskLogs {
  private TaskLogs() {}

  /** {@code <dir>/<task>.previous.log} for {@code <dir>/<task>.log}. */
  public static Path previous(Path log) {
    var name = log.getFileName().toString();
    var base = name.endsWith(".log") ? name.substring(0, name.length() - ".log".length()) : name;
    return log.resolveSibling(base + ".previous.log");
  }

  /** {@code <dir>/<task>.log.1}: the part of a long output rotated aside (see TaskLogStore). */
  public static Path rotated(Path log) {
    return log.resolveSibling(log.getFileName() + ".1");
  }

  /**
   * Moves an existing {@code log} aside (replacing the one before it); nothing to do when there is
   * none. The earlier attempt's rotated part goes: the previous attempt keeps its last file.
   */
  static void keepPrevious(Path log) throws IOException {
    if (Files.exists(log)) {
      Files.move(
          log, previous(log), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    Files.deleteIfExists(rotated(log));
  }
}
