package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.ProcessTree;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  private LeftoverProcesses() {}

  /**
   * Stops what each record names; says, per task, what was found ("its process 12 was gone", …).
   */
  static Map<String, String> stop(Map<String, RunLine.Started> runs) {
    var found = new LinkedHashMap<String, String>();
    var killed = new LinkedHashMap<String, ProcessHandle>();
    var tree = ProcessTree.onDemand(); // shared: where the whole tree must be read, it is read once
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
            return;
          }
          tree.kill(process.get());
          killed.put(task, process.get());
        });
    var alive =
        ProcessTree.awaitGone(List.copyOf(killed.values()), Duration.ofSeconds(DEATH_WAIT_SECONDS));
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
}
