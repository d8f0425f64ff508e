/**
 * Task runtimes: {@link dev.quartermaster.agent.runtime.TaskRuntime} with an {@code exec} driver
 * ({@link dev.quartermaster.agent.runtime.ExecRuntime}, a local process with the CDI env edits) and
 * a {@code podman} driver ({@link dev.quartermaster.agent.runtime.PodmanRuntime}, {@code podman run
 * --rm --network none --device <cdi-name>}). Both open every device node a task was given before it
 * counts as running (podman: inside the container) and record the result ({@link
 * dev.quartermaster.agent.runtime.DeviceCheck}); a node that does not open fails the task with its
 * path and error. A task is never Running with a node it cannot open. {@link
 * dev.quartermaster.agent.runtime.NoopRuntime} runs nothing (for benchmarks).
 */
package dev.quartermaster.agent.runtime;
