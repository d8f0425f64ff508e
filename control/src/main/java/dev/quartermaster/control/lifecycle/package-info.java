/**
 * Task and node lifecycle on the controller side.
 *
 * <h2>Task phases and who sets them</h2>
 *
 * Each writer moves a phase only through its move of {@link
 * dev.quartermaster.api.workload.TaskTransitions}, the table of who may move a task from what to
 * what; the store refuses any other change of phase, whoever writes it.
 *
 * <ul>
 *   <li>{@code Pending} — created by the workload controller (or a user).
 *   <li>{@code Scheduled} — once the node is chosen and every claim is allocated there, in one
 *       transaction with each claim's {@code status.reservedFor} getting the task (removed again
 *       once the task is finished or gone), as {@link dev.quartermaster.control.cluster.Scheduling}
 *       writes it: usually by the allocator, in the very transaction that allocates all of an
 *       unpinned task's claims and pins it ({@code spec.node}); else by {@link
 *       dev.quartermaster.control.lifecycle.TaskScheduler} (a claim allocated before its task, a
 *       task pinned by hand, a task without claims, which it also pins). Any change to a claim
 *       wakes every task naming it, stand-alone claims included.
 *   <li>{@code Preparing} — set by the node's agent when it waits for the task's claims to be
 *       prepared (said only after 2 s: a prepare takes milliseconds), for its volumes, or for its
 *       compute domain, reason naming what it waits for.
 *   <li>{@code Running} — set by the agent only after the device check opened every device node the
 *       task was given ({@code status.deviceCheck.passed}).
 *   <li>{@code Succeeded} / {@code Failed} — set by the agent from the exit code; {@code Failed}
 *       with reason {@code NodeLost} or {@code NodeFenced} by {@link
 *       dev.quartermaster.control.lifecycle.NodeLifecycle}.
 * </ul>
 *
 * The agent also owns {@code ResourceClaim.status.prepare[<node>]}: {@code Prepared} while the
 * claim's devices are set up there, {@code Unprepared} after it tore them down (the task's claims
 * finalizer waits for that), and it sends {@code Node.status.heartbeat} at least every 10 s with
 * {@code AgentReady=True}. This controller writes {@code AgentReady=False reason=HeartbeatMissed}
 * after 40 s in which it saw no new heartbeat value (timed on its own clock, never by the reported
 * time) and flips it back when heartbeats resume.
 */
package dev.quartermaster.control.lifecycle;
