package dev.quartermaster.api.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Deterministic names: task {@code <workload>-<group>-<ordinal>}, claim {@code <task>-<template>},
 * a slot's template volume {@code <task>-<volume template>} (the slot's, not the incarnation's).
 * Because a name says which slot it fills, a create from a stale view collides (AlreadyExists)
 * instead of adding a worker.
 */
public final class TaskNames {
  private TaskNames() {}

  public static String task(String workload, String group, int ordinal) {
    return WorkerNames.task(workload, group, ordinal);
  }

  public static String claim(String task, String template) {
    return task + "-" + template;
  }

  /**
   * Every claim a task of {@code group} uses: one per claim template, and in a workload with a
   * compute domain its channel claim ({@code <task>-channels}) last.
   */
  public static List<String> claims(String task, WorkerGroup group, WorkloadSpec spec) {
    var names = new ArrayList<String>();
    group.claimTemplates().forEach(c -> names.add(claim(task, c.name())));
    spec.computeDomain().ifPresent(d -> names.add(channelClaim(task)));
    return List.copyOf(names);
  }

  /** {@code <task>-channels}: the task's IMEX channels, in a workload with a compute domain. */
  public static String channelClaim(String task) {
    return claim(task, WorkloadSpec.CHANNEL_CLAIM);
  }

  public static String volume(String task, String template) {
    return task + "-" + template;
  }

  /** The ordinal of {@code task} in {@code <workload>-<group>}, if it is one of its names. */
  public static OptionalInt ordinal(String workload, String group, String task) {
    return WorkerNames.ordinal(workload, group, task);
  }
}
