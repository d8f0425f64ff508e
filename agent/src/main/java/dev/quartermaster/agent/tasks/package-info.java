/**
 * The agent's half of the task lifecycle ({@link dev.quartermaster.agent.tasks.TaskSync}): a task
 * scheduled to this node waits in {@code Preparing} until its claims are prepared here, is started
 * with the runtime its spec names ({@link dev.quartermaster.agent.tasks.TaskRuntimes}: {@code
 * exec}, {@code podman}, {@code noop}), counts as {@code Running} only after its device check
 * passed, and ends {@code Succeeded} or {@code Failed} with its exit code and reason. A task's
 * output is in {@code <state>/tasks/<task>.log} on its node, served to the API servers by {@link
 * dev.quartermaster.agent.logs.TaskLogEndpoint} ({@code qm logs}). Deleting a task kills its
 * process; its claims are unprepared only once it is gone (I2). A task an earlier agent process
 * started is never run again: it fails with {@code AgentRestarted}.
 */
package dev.quartermaster.agent.tasks;
