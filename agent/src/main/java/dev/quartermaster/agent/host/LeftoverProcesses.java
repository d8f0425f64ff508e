package dev.quartermaster.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stops the processes an earlier agent started (its run records), before this agent prepares any
 * device again: each one that still runs (same pid, same start time) is killed with its
 * descendants, and start-up waits until they are gone.
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
  /** How often a wait looks again (the JDK's wait for a process not our child is a poll as well). */
  private static final long POLL_MILLIS = 50;

  private LeftoverProcesses() {}

  /** Stops what each record names; says, per task, what was found ("its process 12 was gone", …). */
  static Map<String, String> stop(Map<String, RunLine.Started> runs) {
    var found = new LinkedHashMap<String, String>();
    var killed = new LinkedHashMap<String, ProcessHandle>();
    // One look at every process on the host for all the leftovers: the JDK's descendants() looks at
    // them all for each one, and a node that ran many tasks has many processes.
    Map<Long, List<ProcessHandle>> children = new HashMap<>();
    ProcessHandle.allProcesses().forEach(p ->
        p.parent().ifPresent(parent -> children.computeIfAbsent(parent.pid(), k -> new ArrayList<>()).add(p)));
    runs.forEach((task, run) -> {
      if (run.pid().isEmpty()) {
        found.put(task, "no process was recorded");
        return;
      }
      var process = ProcessHandle.of(run.pid().get()).filter(LeftoverProcesses::running)
          .filter(p -> run.start().isPresent() && p.info().startInstant().equals(run.start()));
      if (process.isEmpty()) {
        found.put(task, "its process " + run.pid().get() + " was gone");
        return;
      }
      descendants(process.get().pid(), children).forEach(ProcessHandle::destroyForcibly);
      process.get().destroyForcibly();
      killed.put(task, process.get());
    });
    var alive = awaitGone(List.copyOf(killed.values()));
    killed.forEach((task, p) -> found.put(task, alive.contains(p)
        ? "its process " + p.pid() + " was still running; killed, but it had not exited after " + DEATH_WAIT_SECONDS + " s"
        : "its process " + p.pid() + " was still running and was killed"));
    return found;
  }

  /** Every process under {@code pid} in the tree {@code children} (parent pid → its children). */
  private static List<ProcessHandle> descendants(long pid, Map<Long, List<ProcessHandle>> children) {
    var out = new ArrayList<ProcessHandle>();
    var seen = new HashSet<Long>(List.of(pid)); // parents are read one by one: a pid reused meanwhile must not loop
    var next = new ArrayDeque<Long>(List.of(pid));
    while (!next.isEmpty()) {
      for (var child : children.getOrDefault(next.poll(), List.of())) {
        if (seen.add(child.pid())) {
          out.add(child);
          next.add(child.pid());
        }
      }
    }
    return out;
  }

  /**
   * Waits until every one of {@code processes} is gone, at most about {@link #DEATH_WAIT_SECONDS};
   * returns those still running then. Each pass either takes a poll's time or finds one exited, so
   * the passes bound the wait without a clock.
   */
  private static List<ProcessHandle> awaitGone(List<ProcessHandle> processes) {
    var left = new ArrayList<>(processes);
    long passes = TimeUnit.SECONDS.toMillis(DEATH_WAIT_SECONDS) / POLL_MILLIS;
    for (long pass = 0; pass < passes; pass++) {
      left.removeIf(p -> !running(p));
      if (left.isEmpty()) {
        break;
      }
      try {
        left.getFirst().onExit().get(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // not gone yet (or its exit cannot be awaited): look at all of them again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    left.removeIf(p -> !running(p));
    return left;
  }

  /** Alive and not a zombie: a process that exited but was not reaped yet holds nothing any more. */
  static boolean running(ProcessHandle p) {
    return p.isAlive() && state(p.pid()).filter(s -> s == 'Z' || s == 'X').isEmpty();
  }

  /**
   * The state letter of process {@code pid} in {@code /proc/<pid>/stat} ('R', 'S', 'Z', …), the
   * field after the name in parentheses, which may itself hold spaces and parentheses. Empty when
   * it cannot be read: gone, or not Linux (then only {@link ProcessHandle#isAlive} says).
   */
  static Optional<Character> state(long pid) {
    // Read by line: procfs reports a size of 0, which a whole-file read may take at its word.
    try (var reader = Files.newBufferedReader(Path.of("/proc", Long.toString(pid), "stat"))) {
      var stat = reader.readLine();
      int close = stat == null ? -1 : stat.lastIndexOf(')');
      return close >= 0 && close + 2 < stat.length() ? Optional.of(stat.charAt(close + 2)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // gone meanwhile, or no procfs
    }
  }
}
