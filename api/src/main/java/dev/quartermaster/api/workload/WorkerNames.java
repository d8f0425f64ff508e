package dev.quartermaster.api.workload;

import java.util.OptionalInt;

/**
 * A workload's worker is named {@code <workload>-<group>-<ordinal>}: the workload controller names
 * them so, and the store's guards read a worker's slot from its name.
 */
public final class WorkerNames {
  private WorkerNames() {}

  public static String task(String workload, String group, int ordinal) {
    return workload + "-" + group + "-" + ordinal;
  }

  /** The ordinal of {@code task} in {@code <workload>-<group>}, if it is one of its names. */
  public static OptionalInt ordinal(String workload, String group, String task) {
    var prefix = workload + "-" + group + "-";
    if (!task.startsWith(prefix)) {
      return OptionalInt.empty();
    }
    var rest = task.substring(prefix.length());
    if (rest.isEmpty()
        || rest.length() > 9
        || !rest.chars().allMatch(Character::isDigit)
        || (rest.length() > 1 && rest.charAt(0) == '0')) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(Integer.parseInt(rest));
  }
}
