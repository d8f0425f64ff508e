package dev.quartermaster.api.queue;

/**
 * One move of an admission entry: {@code step} may move a workload from {@code from} to {@code to},
 * for {@code why}.
 */
public record AdmissionMove(
    AdmissionStep step, AdmissionState from, AdmissionState to, String why) {}
