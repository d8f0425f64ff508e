package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The controller from the incident, kept to prove the test can tell: it creates {@code replicas −
 * (live tasks in my cache)} tasks with random names and deletes a random surplus, trusting the
 * cache completely.
 */
final class NaiveWorkloadController {
  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;

  NaiveWorkloadController(Env env, ApiClient api, Informers informers) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.loop = new ControlLoop("naive", env, 1, this::reconcile);
    informers
        .workloads()
        .addHandler(
            new EventHandler<Workload>() {
              @Override
              public void onAdd(Workload w) {
                loop.enqueue(w.metadata().name());
              }

              @Override
              public void onUpdate(Workload o, Workload w) {
                loop.enqueue(w.metadata().name());
              }
            });
    informers
        .tasks()
        .addHandler(
            new EventHandler<Task>() {
              @Override
              public void onAdd(Task t) {
                loop.enqueue(t.metadata().labels().getOrDefault(Labels.WORKLOAD, ""));
              }

              @Override
              public void onUpdate(Task o, Task t) {
                loop.enqueue(t.metadata().labels().getOrDefault(Labels.WORKLOAD, ""));
              }

              @Override
              public void onDelete(Task t) {
                loop.enqueue(t.metadata().labels().getOrDefault(Labels.WORKLOAD, ""));
              }
            });
  }

  ControlLoop loop() {
    return loop;
  }

  private Result reconcile(String name) {
    var w = informers.workloads().cache().get(name);
    if (w.isEmpty()) {
      return Result.done();
    }
    for (var g : w.get().spec().groups()) {
      var live =
          informers.tasks().cache().byIndex(Informers.BY_GROUP, name + "/" + g.name()).stream()
              .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished())
              .toList();
      int diff = g.replicas() - live.size();
      for (int i = 0; i < diff; i++) {
        var suffix = HexFormat.of().toHexDigits(env.random().nextInt()).substring(0, 5);
        var meta =
            ObjectMeta.named(name + "-" + g.name() + "-" + suffix)
                .withLabels(Map.of(Labels.WORKLOAD, name, Labels.GROUP, g.name()))
                .withOwner(OwnerReference.of(w.get()));
        api.create(
            new Task(
                meta,
                new TaskSpec(
                    Optional.empty(),
                    List.of("sleep", "1"),
                    Map.of(),
                    List.of(),
                    List.of(),
                    "exec",
                    Optional.empty()),
                TaskStatus.EMPTY));
      }
      for (int i = 0; i < -diff; i++) {
        var victim = live.get(env.random().nextInt(live.size()));
        try {
          api.delete(Kinds.TASK, victim.metadata().name());
        } catch (RuntimeException e) {
          // already gone: the cache was stale
        }
      }
    }
    return Result.done();
  }
}
