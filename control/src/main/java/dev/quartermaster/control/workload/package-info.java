/**
 * The workload controller (I4, L1): keeps each worker group at its replicas with deterministic task
 * names ({@code <workload>-<group>-<ordinal>}) and read-your-own-writes {@linkplain
 * dev.quartermaster.control.workload.GroupExpectations expectations}; makes each task's claims; and
 * cascades deletion through finalizers so a task goes only after its claims are unprepared.
 *
 * <h2>Why a stale cache cannot overshoot</h2>
 *
 * Only this controller creates a group's tasks. Before it acts on a group, the task informer must
 * have caught up to the revision of its last create or delete there, so the view contains every
 * task it made. It creates only ordinals below {@code replicas} that have no task, after reading
 * the workload live (a scale-down not yet in the cache stops it). A name still held, even by a task
 * being deleted, is not reused; were a create ever tried from a stale view, the store answers
 * AlreadyExists rather than adding a worker. If the cache does not catch up within the bound (30 s
 * by default) the group is decided from a live list instead, and {@code expectationTimeouts} counts
 * it.
 *
 * <h2>Why a stale spec cannot delete wanted workers</h2>
 *
 * Before any write to a group (delete, restart, create) the workload is read live; if its
 * generation is newer than the cached one, nothing is written until the cache shows it. Creation
 * goes in slow-start batches (1, 2, 4, …), one per pass, so each batch is preceded by that check
 * and by the cache catching up with the previous batch. The window between the live read and the
 * write is closed by the store: each create and scale-down carries the spec generation it was
 * decided on and is refused once the workload has moved ({@code SpecDecisionGuard}).
 *
 * <h2>Restarts and names</h2>
 *
 * Finished tasks are replaced per restart policy, paced by {@link
 * dev.quartermaster.api.workload.RestartBackoff} (10 s doubling to 5 min); the new task's {@code
 * spec.attempt} says how many restarts in a row its slot has had. A wanted name held by a task this
 * workload does not own (another workload's, or a hand-made one) is reported as {@code
 * TasksCreated=False reason=NameTaken} naming the holder; the other ordinals go on.
 *
 * <h2>Slot volumes</h2>
 *
 * A group's volume claim templates give each slot (ordinal) one volume {@code
 * <workload>-<group>-<ordinal>-<template>}, owned by the workload and labelled with its slot, made
 * (or found, read live) before the slot's task, which uses it as a writer by the template's name; a
 * replaced task finds the same volume. A slot's volume goes ({@code volumeRetention: Delete}) once
 * the slot is above replicas and no task of it is left, on the newest spec only; {@code Retain}
 * keeps it. Deleting the workload deletes them, or ({@code Retain}) takes the workload off them as
 * owner, and a later workload of the same name and group adopts them. A slot volume name held by
 * something else is reported like a task name ({@code NameTaken}).
 */
package dev.quartermaster.control.workload;
