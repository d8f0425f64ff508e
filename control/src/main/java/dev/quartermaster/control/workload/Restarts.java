package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.PhaseWriter;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskConditions;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Paces restarts of finished tasks with a {@link RestartBackoff}. A finished task to be replaced
 * first gets a condition {@code Restarting} ("replaced after a 40s back-off (attempt 3): exit code
 * 1") whose transition time, on the controller's clock, starts its wait; it is deleted only once
 * the wait is over. The replacement carries {@code spec.attempt}. Between the delete and the create
 * the attempt lives here, per slot, and is read back from the deleting task while it is still
 * there; a controller that restarts after the old task is gone starts that slot at attempt 0.
 */
final class Restarts {

  private final Env env;
  private final ApiClient api;
  private final RestartBackoff backoff;

  /** Slot ({@code <workload-uid>/<group>/<ordinal>}) → the attempt number its next task gets. */
  private final Map<String, Integer> nextAttempt = new ConcurrentHashMap<>();

  private final EventRecorder events;

  Restarts(Env env, ApiClient api, RestartBackoff backoff, EventRecorder events) {
    this.env = env;
    this.events = events;
    this.api = api;
    this.backoff = backoff;
  }

  /**
   * Marks each finished task with its wait, deletes those whose wait is over, and says when to look
   * again. {@code deleting} is the group's tasks already being deleted, whose attempts are
   * remembered.
   */
  Optional<Duration> pace(
      String key,
      List<Task> finished,
      List<Task> deleting,
      TaskWriter writer,
      java.util.function.ToIntFunction<Task> ordinal) {
    for (var t : deleting) {
      if (Condition.find(t.status().conditions(), TaskConditions.RESTARTING).isPresent()) {
        nextAttempt.putIfAbsent(key + "/" + ordinal.applyAsInt(t), backoff.nextAttempt(t));
      }
    }
    Optional<Duration> recheck = Optional.empty();
    var now = env.now();
    for (var t : finished) {
      int attempt = backoff.nextAttempt(t);
      var delay = backoff.delayBefore(attempt);
      var since =
          Condition.find(t.status().conditions(), TaskConditions.RESTARTING)
              .flatMap(Condition::lastTransition);
      if (!delay.isZero() && since.isEmpty()) {
        mark(t, attempt, delay, now);
        recheck = earliest(recheck, delay);
        continue;
      }
      var left = Duration.between(now, since.orElse(now).plus(delay));
      if (left.isPositive()) {
        recheck = earliest(recheck, left);
        continue;
      }
      nextAttempt.put(key + "/" + ordinal.applyAsInt(t), attempt);
      writer.delete(key, t);
    }
    return recheck;
  }

  /**
   * The attempt number for a new task in slot {@code ordinal}: remembered from its last restart,
   * else 0.
   */
  int attemptFor(String key, int ordinal) {
    var a = nextAttempt.remove(key + "/" + ordinal);
    return a == null ? 0 : a;
  }

  void forgetAll(String prefix) {
    nextAttempt.keySet().removeIf(k -> k.startsWith(prefix));
  }

  private void mark(Task t, int attempt, Duration delay, Instant now) {
    var s = t.status();
    var why =
        s.exitCode()
            .map(c -> "exit code " + c)
            .orElse(s.reason().isEmpty() ? s.phase().name() : s.reason());
    var c =
        Conditions.of(
            TaskConditions.RESTARTING,
            true,
            "BackOff",
            // No countdown: read minutes later, "in 10s" would be wrong; the condition's time says
            // when the back-off began, and a replacement still held up after it says why.
            "replaced after a "
                + delay.toSeconds()
                + "s back-off (attempt "
                + attempt
                + "): "
                + why);
    api.updateStatus(
        t.withStatus(
            TaskTransitions.withConditions(
                PhaseWriter.RESTARTS, s, Conditions.set(s.conditions(), c, now))));
    events.warning(t, "BackOff", c.message());
  }

  private static Optional<Duration> earliest(Optional<Duration> a, Duration b) {
    return Optional.of(a.filter(x -> x.compareTo(b) < 0).orElse(b));
  }
}
