package dev.quartermaster.agent.host;

import dev.quartermaster.agent.runtime.TaskRuntime;
import java.util.Optional;

/**
 * Where the node's task processes run, and the agent's records of them. Processes outlive the agent
 * that started them (as real ones do, reparented to init); the records are how the next agent finds
 * and stops them.
 */
public interface TaskHost {

  /**
   * The runtime a task's {@code spec.runtime} names ({@code exec}, {@code podman}, {@code noop}).
   */
  Optional<TaskRuntime> runtime(String name);

  RunRecords records();
}
