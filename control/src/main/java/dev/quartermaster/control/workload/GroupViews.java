package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks of each group of a workload that may be acted on now: from the cache once it shows our
 * last write there ({@link GroupExpectations}), read live when it stays behind past the bound or
 * while it may lack an earlier leader's tasks; a group still waiting has no view, and the workload
 * comes back when the cache catches up.
 */
final class GroupViews {
  private static final Logger LOG = LoggerFactory.getLogger(GroupViews.class);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final GroupExpectations expectations;
  private final ControlLoop loop;

  /** Revisions a catch-up callback is already registered for, per workload. */
  private final Map<String, Long> waitingFor = new ConcurrentHashMap<>();

  /**
   * The revision that fenced the earlier leader's writes, once this one leads; 0 for a controller
   * run on its own (tests, benches), which has no earlier leader.
   */
  private volatile long termFence;

  GroupViews(
      Env env,
      ApiClient api,
      Informers informers,
      GroupExpectations expectations,
      ControlLoop loop) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.expectations = expectations;
    this.loop = loop;
  }

  /** The views of a pass, by group name, and when to look again for the groups left out. */
  record Views(Map<String, List<Task>> byGroup, Optional<Duration> recheck) {}

  void startLeading(long fenceRevision) {
    termFence = fenceRevision;
  }

  /** Workload {@code name} is gone. */
  void forget(String name) {
    waitingFor.remove(name);
  }

  Views of(Workload w) {
    var name = w.metadata().name();
    Optional<Duration> recheck = Optional.empty();
    var views = new HashMap<String, List<Task>>();
    for (var group : w.spec().groups()) {
      var key = w.metadata().uid() + "/" + group.name();
      if (informers.tasks().syncedRevision() < termFence) {
        // An earlier leader's tasks may not be in the cache yet (seed 399: a scale-down decided
        // without the surplus task it had made, and a new worker created beside it): read live.
        views.put(group.name(), live(name, group.name()));
        continue;
      }
      var gate = expectations.gate(key, informers.tasks().syncedRevision(), env.nanoTime());
      switch (gate) {
        case GroupExpectations.Gate.Open o -> views.put(group.name(), cached(name, group.name()));
        case GroupExpectations.Gate.Waiting wait -> {
          whenCaughtUp(name, wait.revision());
          recheck = Recheck.earliest(recheck, wait.left());
        }
        case GroupExpectations.Gate.TimedOut t -> {
          LOG.warn(
              "workload {} group {}: task cache did not reach revision {} within the bound; reading live",
              name,
              group.name(),
              t.revision());
          views.put(group.name(), live(name, group.name()));
          expectations.clear(key);
        }
      }
    }
    return new Views(views, recheck);
  }

  /** The group's tasks as the cache has them. */
  List<Task> cached(String workload, String group) {
    return informers.tasks().cache().byIndex(Informers.BY_GROUP, workload + "/" + group);
  }

  /** The group's tasks as the store has them now. */
  List<Task> live(String workload, String group) {
    return api.list(
            Kinds.TASK,
            LabelSelector.equalTo(Map.of(Labels.WORKLOAD, workload, Labels.GROUP, group)))
        .items();
  }

  private void whenCaughtUp(String name, long revision) {
    if (!Long.valueOf(revision).equals(waitingFor.put(name, revision))) {
      informers.tasks().whenCaughtUp(revision, () -> loop.enqueue(name));
    }
  }
}
