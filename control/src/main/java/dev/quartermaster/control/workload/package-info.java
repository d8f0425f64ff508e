/**
 * The workload controller (I4, L1): keeps each worker group at its replicas with deterministic task
 * names ({@code <workload>-<group>-<ordinal>}) and read-your-own-writes {@linkplain
 * dev.quartermaster.control.workload.GroupExpectations expectations}; makes each task's claims; and
 * cascades deletion through finalizers so a task goes only after its claims are unprepared.
 *
 * <h2>Why a stale cache cannot overshoot</h2>
 * Only this controller creates a group's tasks. Before it acts on a group, the task informer must
 * have caught up to the revision of its last create or delete there, so the view contains every
 * task it made. It creates only ordinals below {@code replicas} that have no task, after reading the
 * workload live (a scale-down not yet in the cache stops it). A name still held, even by a task
 * being deleted, is not reused; were a create ever tried from a stale view, the store answers
 * AlreadyExists rather than adding a worker. If the cache does not catch up within the bound (30 s
 * by default) the group is decided from a live list instead, and {@code expectationTimeouts}
 * counts it.
 */
package dev.quartermaster.control.workload;
