package dev.quartermaster.control.deadline;

import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each task's deadline falls, on this control plane's monotonic clock ({@link Env#nanoTime}):
 * from the moment it first saw the task {@code Running} ({@link #observe}), plus its {@code
 * activeDeadlineSeconds}. A control plane that starts (a new leader) sees the running tasks anew,
 * so a fail-over lengthens a deadline by at most the time since the task started. Thread-safe.
 */
public final class TaskDeadlines {
  private final Env env;

  /** Task uid → when it was first seen running. */
  private final Map<String, Long> runningSince = new ConcurrentHashMap<>();

  public TaskDeadlines(Env env) {
    this.env = env;
  }

  /** The task as the caches show it now: a running one's start is remembered from now on. */
  public void observe(Task t) {
    if (t.status().phase() == TaskPhase.Running) {
      runningSince.putIfAbsent(t.metadata().uid(), env.nanoTime());
    } else if (t.status().phase().isFinished()) {
      runningSince.remove(t.metadata().uid());
    }
  }

  /** The task is gone. */
  public void forget(String uid) {
    runningSince.remove(uid);
  }

  /**
   * When {@code t}'s deadline falls: for a task seen running, its start plus the deadline; for one
   * not running yet, no sooner than now plus the deadline (the latest it could give its devices
   * back, were it to start now). Empty: it has no deadline.
   */
  public OptionalLong deadlineOf(Task t) {
    var deadline = t.spec().activeDeadline();
    if (deadline.isEmpty()) {
      return OptionalLong.empty();
    }
    long since =
        t.status().phase() == TaskPhase.Running
            ? runningSince.computeIfAbsent(t.metadata().uid(), u -> env.nanoTime())
            : env.nanoTime();
    return OptionalLong.of(since + deadline.get().toNanos());
  }

  /** How long from now until {@code at} (on this clock); zero if it has passed. */
  public Duration until(long at) {
    return Duration.ofNanos(Math.max(0, at - env.nanoTime()));
  }

  /** This clock now. */
  public long now() {
    return env.nanoTime();
  }
}
