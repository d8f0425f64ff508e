package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.control.workload.TaskNames;
import dev.quartermaster.control.workload.WorkloadController;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A new leader decides a group on every task an earlier leader made, even one its task cache has
 * not shown yet (campaign seed 399: after a fail-over, a gang scaled from 3 to 2 had ordinals 0 and
 * 2 in the store and only 0 in the new leader's cache; it created ordinal 1 beside the surplus 2,
 * three live workers for two replicas, I4). Until its task cache reaches the revision that fenced
 * the earlier leader, the workload controller reads a group's tasks live. Tried: trusting the cache
 * as before creates the third worker.
 */
class NewLeaderTaskCacheTest {
  @Test
  void aNewLeaderScalesDownTheSurplusItsCacheHasNotShownBeforeCreating() {
    var live = run(true);
    assertThat(live).as("live workers after the scale to 2").hasSize(2);
  }

  @Test
  void trustingALaggingCacheCreatesAThirdWorker() {
    assertThat(run(false)).as("the naive reading: live workers").hasSize(3);
  }

  private static List<String> run(boolean fenced) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var held = new HeldTaskWatch(c.api());
    var informers = new Informers(c.env(), held);
    informers.start();
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of());
    var group = new WorkerGroup("w", 3, template, List.of(), null);
    var w =
        c.api()
            .create(
                new Workload(
                    ObjectMeta.named("job"),
                    new WorkloadSpec(List.of(group), Optional.empty()),
                    null));
    c.api().create(task(w, 0));
    c.runUntil(
        () -> informers.tasks().cache().get(TaskNames.task("job", "w", 0)).isPresent(),
        Duration.ofSeconds(10));
    // The earlier leader made ordinal 2 (its cache lags here), then the operator scaled to 2.
    held.hold();
    c.api().create(task(w, 2));
    var scaled = c.api().get(Kinds.WORKLOAD, "job").orElseThrow();
    c.api().update(scaled.withSpec(scaled.spec().withGroups(List.of(group.withReplicas(2)))));
    long fence = c.api().list(Kinds.WORKLOAD).revision();
    var controller =
        new WorkloadController(
            c.env(), c.api(), informers, WorkloadController.DEFAULT_EXPECTATION_BOUND);
    if (fenced) {
      controller.startLeading(fence);
    }
    controller.loop().start();
    c.runUntil(() -> false, Duration.ofSeconds(20));
    return c.api().list(Kinds.TASK).items().stream()
        .filter(t -> !t.metadata().isDeleting())
        .map(t -> t.metadata().name())
        .toList();
  }

  /** A task of ordinal {@code i} as a workload controller makes it, without finalizers. */
  private static Task task(Workload w, int i) {
    var labels =
        Map.of(
            Labels.WORKLOAD, w.metadata().name(),
            Labels.GROUP, "w",
            Labels.ORDINAL, Integer.toString(i),
            SpecDecision.CREATED_AT, Long.toString(w.metadata().generation()));
    return new Task(
        ObjectMeta.named(TaskNames.task(w.metadata().name(), "w", i))
            .withLabels(labels)
            .withOwner(OwnerReference.of(w)),
        new TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "noop",
            Optional.empty(),
            0,
            dev.quartermaster.api.workload.DeviceLossPolicy.Continue),
        TaskStatus.EMPTY);
  }

  /** An API whose task watch holds its events back once told to, as a lagging cache's does. */
  private static final class HeldTaskWatch extends ForwardingApiClient {
    private volatile boolean held;

    HeldTaskWatch(ApiClient api) {
      super(api);
    }

    void hold() {
      held = true;
    }

    @Override
    public <T extends ApiObject> WatchHandle watch(
        Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
      if (!kind.equals(Kinds.TASK)) {
        return api.watch(kind, afterRevision, scope, handler);
      }
      var later = new ArrayList<Runnable>();
      return api.watch(
          kind,
          afterRevision,
          scope,
          new WatchHandler<T>() {
            @Override
            public void onEvent(WatchEvent<T> event) {
              if (held) {
                later.add(() -> handler.onEvent(event));
              } else {
                handler.onEvent(event);
              }
            }

            @Override
            public void onGone(long compactedRevision) {
              handler.onGone(compactedRevision);
            }

            @Override
            public void onCaughtUp(long revision) {
              if (!held) {
                handler.onCaughtUp(revision);
              }
            }

            @Override
            public void onClosed(String reason) {
              handler.onClosed(reason);
            }
          });
    }
  }
}
