package dev.quartermaster.agent.host;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Optional;

/**
 * One line of the run-record file ({@link FileRunRecords}): tab-separated, the record's type, the
 * task, then {@code key=value} fields. Task names are DNS labels and uids UUIDs, so neither holds a
 * tab or a line break.
 *
 * <pre>
 * started	train-w-0	uid=1d74…	pid=21393	start=2026-11-25T22:40:55.120Z
 * started	train-w-1	uid=9a0c…	container=qm-train-w-1
 * ended	train-w-0
 * </pre>
 */
sealed interface RunLine {
  String task();

  String encode();

  /** A task's process (or container) started. */
  record Started(
      String task,
      String uid,
      Optional<Long> pid,
      Optional<Instant> start,
      Optional<String> container)
      implements RunLine {
    @Override
    public String encode() {
      var line = new StringBuilder("started\t").append(task).append("\tuid=").append(uid);
      pid.ifPresent(p -> line.append("\tpid=").append(p));
      start.ifPresent(s -> line.append("\tstart=").append(s));
      container.ifPresent(c -> line.append("\tcontainer=").append(c));
      return line.toString();
    }
  }

  /** A task's process is known to be gone. */
  record Ended(String task) implements RunLine {
    @Override
    public String encode() {
      return "ended\t" + task;
    }
  }

  /** The record {@code line} holds; empty when it is not one (a torn or foreign line). */
  static Optional<RunLine> parse(String line) {
    var parts = line.split("\t");
    if (parts.length < 2 || parts[1].isEmpty()) {
      return Optional.empty();
    }
    var task = parts[1];
    if (parts[0].equals("ended") && parts.length == 2) {
      return Optional.of(new Ended(task));
    }
    if (!parts[0].equals("started")) {
      return Optional.empty();
    }
    var fields = new HashMap<String, String>();
    for (int i = 2; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0) {
        return Optional.empty();
      }
      fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
    }
    var uid = fields.get("uid");
    if (uid == null || uid.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new Started(
              task,
              uid,
              Optional.ofNullable(fields.get("pid")).map(Long::parseLong),
              Optional.ofNullable(fields.get("start")).map(Instant::parse),
              Optional.ofNullable(fields.get("container"))));
    } catch (NumberFormatException | DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
