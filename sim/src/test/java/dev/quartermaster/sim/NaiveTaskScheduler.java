package dev.quartermaster.sim;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.Optional;

/**
 * The scheduler from issue 8, kept to prove the tests can tell: a claim update wakes only the task
 * that owns the claim (so a task on a stand-alone claim can wait forever), and it never fills in
 * {@code reservedFor}.
 */
final class NaiveTaskScheduler {
  private final ControlLoop loop;

  NaiveTaskScheduler(Env env, ApiClient api, Informers informers) {
    this.loop =
        new ControlLoop(
            "naive-scheduler",
            env,
            1,
            name -> {
              var t = informers.tasks().cache().get(name).orElse(null);
              if (t == null
                  || t.metadata().isDeleting()
                  || t.status().phase() != TaskPhase.Pending) {
                return Result.done();
              }
              Optional<String> node = Optional.empty();
              for (var claim : t.spec().claims()) {
                var c = informers.claims().cache().get(claim).flatMap(x -> x.status().allocation());
                if (c.isEmpty()) {
                  return Result.done();
                }
                node = Optional.of(c.get().node());
              }
              if (node.isEmpty()) {
                return Result.done();
              }
              try {
                if (t.spec().node().isEmpty()) {
                  var s = t.spec();
                  api.update(
                      t.withSpec(
                          new TaskSpec(
                              node,
                              s.command(),
                              s.env(),
                              s.claims(),
                              s.volumes(),
                              s.runtime(),
                              s.image())));
                  return Result.done();
                }
                var s = t.status();
                api.updateStatus(
                    t.withStatus(
                        new TaskStatus(
                            TaskPhase.Scheduled,
                            "Scheduled",
                            "",
                            node,
                            s.deviceCheck(),
                            s.exitCode(),
                            s.startedAt(),
                            s.finishedAt(),
                            s.conditions())));
              } catch (RuntimeException e) {
                return Result.requeue();
              }
              return Result.done();
            });
    informers
        .tasks()
        .addHandler(EventHandler.onAddOrUpdate(t -> loop.enqueue(t.metadata().name())));
    informers
        .claims()
        .addHandler(
            new EventHandler<ResourceClaim>() {
              @Override
              public void onUpdate(ResourceClaim o, ResourceClaim c) {
                c.metadata()
                    .owner()
                    .filter(x -> x.kind().equals(Kinds.TASK.name()))
                    .ifPresent(x -> loop.enqueue(x.name()));
              }
            });
  }

  ControlLoop loop() {
    return loop;
  }
}
