package dev.quartermaster.agent.tasks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Optional;

/**
 * One small file per task this agent started, {@code <state>/tasks/<name>.run}: the task's uid,
 * and the pid and start time of its process. A restarted agent cannot follow a process an earlier
 * agent started (no exit code, no device check), so it fails such a task ({@code AgentRestarted})
 * rather than running it again, and stops the process if it is still there (the same pid started
 * at the same time): a process nobody follows could outlive its claims, which breaks I2.
 */
final class RunRecords {
  private final Path dir;

  RunRecords(Path dir) {
    this.dir = dir;
  }

  /** What a record says. */
  record Run(String uid, long pid, Optional<Instant> start) {}

  void write(String task, String uid, Optional<ProcessHandle> process) throws IOException {
    Files.createDirectories(dir);
    var text = new StringBuilder("uid=").append(uid).append('\n');
    process.ifPresent(p -> {
      text.append("pid=").append(p.pid()).append('\n');
      p.info().startInstant().ifPresent(s -> text.append("start=").append(s).append('\n'));
    });
    Files.writeString(file(task), text, StandardCharsets.UTF_8);
  }

  Optional<Run> read(String task) {
    try {
      var fields = new HashMap<String, String>();
      for (var line : Files.readAllLines(file(task), StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          fields.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      var uid = fields.get("uid");
      if (uid == null) {
        return Optional.empty();
      }
      long pid = fields.containsKey("pid") ? Long.parseLong(fields.get("pid")) : -1;
      return Optional.of(new Run(uid, pid, Optional.ofNullable(fields.get("start")).map(Instant::parse)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // no record (or an unreadable one): nothing was started here
    }
  }

  void remove(String task) {
    try {
      Files.deleteIfExists(file(task));
    } catch (IOException e) {
      // a stale record only makes a later restart look for a process that is gone
    }
  }

  /**
   * Stops the process {@code run} names if it still runs (same pid, same start time); says what
   * was found, for the task's message.
   */
  static String stopOrphan(Run run) {
    if (run.pid() < 0) {
      return "no process was recorded";
    }
    var process = ProcessHandle.of(run.pid())
        .filter(ProcessHandle::isAlive)
        .filter(p -> run.start().isPresent() && p.info().startInstant().equals(run.start()));
    if (process.isEmpty()) {
      return "its process " + run.pid() + " was gone";
    }
    process.get().descendants().forEach(ProcessHandle::destroyForcibly);
    process.get().destroyForcibly();
    return "its process " + run.pid() + " was still running and was killed";
  }

  private Path file(String task) {
    return dir.resolve(task + ".run");
  }
}
