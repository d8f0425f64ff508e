package dev.quartermaster.agent.tasks;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A task process on this node that was started with a claim and may still run: while there is one,
 * the claim must stay prepared here (I2), whatever happens to the claim object.
 *
 * @param task the task's name
 * @param state {@code starting}, {@code running} or {@code stopping} (being killed)
 */
public record ClaimUser(String task, String state) {
  public ClaimUser {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(state, "state");
  }

  /**
   * {@code in use by task train-w-0 (running); unprepared when it stops}, for the claim's prepare
   * state.
   */
  public static String reason(List<ClaimUser> users) {
    var who =
        users.stream()
            .map(u -> "task " + u.task() + " (" + u.state() + ")")
            .collect(Collectors.joining(", "));
    return "in use by "
        + who
        + "; unprepared when "
        + (users.size() == 1 ? "it stops" : "they stop");
  }
}
