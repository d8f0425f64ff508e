/**
 * Deterministic simulation: {@link dev.quartermaster.sim.SimStore} (an in-memory store whose
 * watches deliver late and sometimes drop), {@link dev.quartermaster.sim.SimCluster} (a seeded
 * world with the real object registry over it), and the scenarios and invariant checks in this
 * module's tests. A failing scenario prints its seed; running the same seed replays it.
 */
package dev.quartermaster.sim;
