package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.ProcessTree;
import dev.quartermaster.agent.tasks.TaskLogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stops the processes an earlier agent started (its run records), before this agent prepares any
 * device again: each one that still runs (same pid, same start time) is killed with its
 * descendants, and so is every process that still writes to a recorded task's output file (a task's
 * first process may have ended while no agent ran, leaving its children behind with the task's
 * devices in their environment: no agent saw the end, so none killed them); start-up waits until
 * they are gone.
 *
 * <p>All are killed first, then awaited together: a node that ran a hundred tasks when its agent
 * died would otherwise wait for each in turn. And a killed process counts as gone once it is a
 * zombie: it then holds no file, no device and no memory, only its exit status. Its new parent is
 * init (the agent that started it is dead), and an init that reaps slowly, or never (a container's
 * first process often does not), left the agent waiting its whole bound for each one — a restarted
 * {@code qm up} took two seconds per task that had been running.
 */
final class LeftoverProcesses {
  /** How long killed leftovers may take, together, to die before start-up goes on without them. */
  static final long DEATH_WAIT_SECONDS = 10;

  private LeftoverProcesses() {}

  /**
   * Stops what each record names, and what still writes to each recorded task's output in {@code
   * logDir}; says, per task, what was found ("its process 12 was gone", …).
   */
  static Map<String, String> stop(Map<String, RunLine.Started> runs, Path logDir) {
    var found = new LinkedHashMap<String, String>();
    var killed = new LinkedHashMap<String, ProcessHandle>();
    var tree = ProcessTree.onDemand(); // shared: where the whole tree must be read, it is read once
    var writers = writers(runs.keySet(), logDir);
    var orphans = new LinkedHashMap<String, List<ProcessHandle>>();
    runs.forEach(
        (task, run) -> {
          if (run.pid().isEmpty()) {
            found.put(task, "no process was recorded");
            return;
          }
          var process =
              ProcessHandle.of(run.pid().get())
                  .filter(ProcessTree::running)
                  .filter(
                      p -> run.start().isPresent() && p.info().startInstant().equals(run.start()));
          if (process.isEmpty()) {
            found.put(task, "its process " + run.pid().get() + " was gone");
            var left = writers.getOrDefault(task, List.of());
            if (!left.isEmpty()) {
              orphans.put(task, left);
            }
            return;
          }
          tree.kill(process.get());
          killed.put(task, process.get());
        });
    // After the trees: a recorded process killed first would leave its children to init, out of
    // its tree's reach.
    var awaited = new ArrayList<ProcessHandle>(killed.values());
    writers.values().forEach(left -> left.forEach(ProcessHandle::destroyForcibly));
    writers.values().forEach(awaited::addAll);
    var alive = ProcessTree.awaitGone(awaited, Duration.ofSeconds(DEATH_WAIT_SECONDS));
    orphans.forEach(
        (task, left) ->
            found.put(
                task,
                found.get(task)
                    + ", but "
                    + left.size()
                    + " process(es) it left still wrote to its output ("
                    + String.join(", ", left.stream().map(p -> Long.toString(p.pid())).toList())
                    + ") and were killed"
                    + (left.stream().anyMatch(alive::contains)
                        ? "; some had not exited after " + DEATH_WAIT_SECONDS + " s"
                        : "")));
    killed.forEach(
        (task, p) ->
            found.put(
                task,
                alive.contains(p)
                    ? "its process "
                        + p.pid()
                        + " was still running; killed, but it had not exited after "
                        + DEATH_WAIT_SECONDS
                        + " s"
                    : "its process " + p.pid() + " was still running and was killed"));
    return found;
  }

  /**
   * The live processes whose standard output or error is a task's output file ({@code <task>.log},
   * or the part rotation set aside), by task: what the task started is found by what it writes to,
   * whatever became of its first process, and nothing else writes there.
   */
  private static Map<String, List<ProcessHandle>> writers(Set<String> tasks, Path logDir) {
    var byFile = new HashMap<Path, String>();
    for (var task : tasks) {
      var log = logDir.resolve(task + ".log"); // the run records sit beside the task logs
      byFile.put(log.toAbsolutePath().normalize(), task);
      byFile.put(TaskLogs.previous(log).toAbsolutePath().normalize(), task);
    }
    var out = new HashMap<String, List<ProcessHandle>>();
    if (byFile.isEmpty()) {
      return out;
    }
    try (var procs = Files.list(Path.of("/proc"))) {
      procs
          .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .forEach(
              proc -> {
                for (var fd : List.of("1", "2")) {
                  try {
                    var task = byFile.get(Files.readSymbolicLink(proc.resolve("fd").resolve(fd)));
                    if (task != null) {
                      ProcessHandle.of(Long.parseLong(proc.getFileName().toString()))
                          .filter(ProcessTree::running)
                          .ifPresent(h -> out.computeIfAbsent(task, t -> new ArrayList<>()).add(h));
                      return;
                    }
                  } catch (IOException | RuntimeException e) {
                    // gone, or not ours to read: not a task's writer we can stop
                  }
                }
              });
    } catch (IOException e) {
      // no /proc: the recorded processes are all there is to stop
    }
    return out;
  }
}
