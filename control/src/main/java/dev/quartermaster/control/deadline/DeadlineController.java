package dev.quartermaster.control.deadline;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;

/**
 * Ends a task still running at its deadline ({@link TaskDeadlines}): {@code Failed:
 * DeadlineExceeded} through {@link TaskTransitions#deadlineExceeded}, with a warning event; the
 * task's agent kills its process on seeing it finished, and the workload's restart policy decides
 * whether it is replaced. The write reads the task live and compares its revision, so a task that
 * ended by itself meanwhile keeps its own outcome.
 */
public final class DeadlineController {
  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final TaskDeadlines deadlines;
  private final EventRecorder events;
  private final ControlLoop loop;

  public DeadlineController(
      Env env, ApiClient api, Informers informers, TaskDeadlines deadlines, EventRecorder events) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.deadlines = deadlines;
    this.events = events;
    this.loop = new ControlLoop("deadlines", env, 1, this::reconcile);
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Task t) {
                seen(t);
              }

              @Override
              public void onUpdate(Task o, Task t) {
                seen(t);
              }

              @Override
              public void onDelete(Task t) {
                deadlines.forget(t.metadata().uid());
              }
            });
  }

  public ControlLoop loop() {
    return loop;
  }

  private void seen(Task t) {
    deadlines.observe(t);
    if (t.status().phase() == TaskPhase.Running && t.spec().activeDeadline().isPresent()) {
      loop.enqueue(t.metadata().name());
    }
  }

  private Result reconcile(String name) {
    var cached = informers.tasks().cache().get(name);
    if (cached.isEmpty()
        || cached.get().status().phase() != TaskPhase.Running
        || cached.get().metadata().isDeleting()) {
      return Result.done();
    }
    var at = deadlines.deadlineOf(cached.get());
    if (at.isEmpty()) {
      return Result.done();
    }
    var left = deadlines.until(at.getAsLong());
    if (!left.isZero()) {
      return Result.requeueAfter(left);
    }
    var live = api.get(Kinds.TASK, name);
    if (live.isEmpty()
        || !live.get().metadata().uid().equals(cached.get().metadata().uid())
        || live.get().status().phase() != TaskPhase.Running) {
      return Result.done();
    }
    var t = live.get();
    var message =
        "ran past its activeDeadlineSeconds ("
            + t.spec().activeDeadlineSeconds().orElseThrow()
            + "s since the control plane saw it running); stopped";
    api.updateStatus(
        t.withStatus(TaskTransitions.deadlineExceeded(t.status(), message, env.now())));
    events.warning(t, TaskTransitions.DEADLINE_EXCEEDED, message);
    return Result.done();
  }
}
