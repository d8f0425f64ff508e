package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.TaskHandle;
import java.io.IOException;
import java.util.Map;

/**
 * What this node's agents started: per task, the incarnation (uid) and how to find its process
 * again. A restarted agent cannot follow a process an earlier agent started (no exit code, no
 * device check), so on start it stops every one still there ({@link #stopAll}) before it prepares
 * any device again: a process nobody follows would go on using a GPU that its claim no longer holds
 * (I1, I2) — whatever the store says about its task.
 */
public interface RunRecords {

  /** Records that {@code handle} runs incarnation {@code uid} of {@code task}. */
  void started(String task, String uid, TaskHandle handle) throws IOException;

  /** Forgets {@code task}'s record (its process is known to be gone). */
  void remove(String task);

  /**
   * Stops every recorded process that still runs and forgets every record; says per task what was
   * found, for the task's status.
   */
  Map<String, Leftover> stopAll();

  /** What a record named, and what became of its process. */
  record Leftover(String uid, String found) {}
}
