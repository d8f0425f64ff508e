/**
 * Gangs: a worker group, or all of a workload's groups, placed all together or not at all, with
 * their topology rules; {@link dev.quartermaster.api.gang.WorkloadGangs} reads a workload's spec
 * into its gangs. The allocator places them (see {@code dev.quartermaster.control.allocator}); the
 * API only describes them.
 */
package dev.quartermaster.api.gang;
