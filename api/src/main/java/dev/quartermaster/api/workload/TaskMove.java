package dev.quartermaster.api.workload;

/**
 * One legal move of a task's phase: {@code writer} may write {@code to} over {@code from}, for
 * {@code why}.
 */
public record TaskMove(PhaseWriter writer, TaskPhase from, TaskPhase to, String why) {}
