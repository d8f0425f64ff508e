/**
 * Deadlines: a task's {@code activeDeadlineSeconds} is the most it may run. {@link TaskDeadlines}
 * says when each task's deadline falls, timed on the control plane's own monotonic clock from when
 * it first saw the task running (an agent's reported start is never trusted, as heartbeats are
 * not), for the {@link DeadlineController}, which ends a task still running then ({@code Failed:
 * DeadlineExceeded}; its agent kills the process), and for the allocator, which reserves for the
 * waiting head of the line the devices that free up soonest by these deadlines and lets a smaller
 * job take them only if its own deadline ends first.
 */
package dev.quartermaster.control.deadline;
