package dev.quartermaster.control.workload;

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
    return workload + "-" + group + "-" + ordinal;
  }

  public static String claim(String task, String template) {
    return task + "-" + template;
  }

  public static String volume(String task, String template) {
    return task + "-" + template;
  }

  /** The ordinal of {@code task} in {@code <workload>-<group>}, if it is one of its names. */
  public static OptionalInt ordinal(String workload, String group, String task) {
    var prefix = workload + "-" + group + "-";
    if (!task.startsWith(prefix)) {
      return OptionalInt.empty();
    }
    var rest = task.substring(prefix.length());
    if (rest.isEmpty() || rest.length() > 9 || !rest.chars().allMatch(Character::isDigit)
        || (rest.length() > 1 && rest.charAt(0) == '0')) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(Integer.parseInt(rest));
  }
}
