package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each worker group of each workload at its replicas (I4), without ever acting on a view
 * that misses its own writes: deterministic task names, {@link GroupExpectations} on the revision of
 * our last write, a live read of the workload before creating (so a scale-down that the cache has
 * not shown yet is not overrun), and a live list of tasks when the cache stays behind too long.
 *
 * <p>Deletion cascades: the workload carries {@link Labels#TASKS_FINALIZER}; once it is deleting,
 * its tasks are deleted, and the finalizer goes when a live list shows none left. Each task carries
 * {@link Labels#CLAIMS_FINALIZER}, handled by {@link TaskController}.
 */
public final class WorkloadController {
  /** How long a group waits for the cache to show our writes before it reads live. */
  public static final Duration DEFAULT_EXPECTATION_BOUND = Duration.ofSeconds(30);
  /** The workload condition about whether its claims can be allocated. */
  public static final String SCHEDULABLE = "Schedulable";
  /** The workload condition about whether its tasks could be created. */
  public static final String TASKS_CREATED = "TasksCreated";

  private static final Logger LOG = LoggerFactory.getLogger(WorkloadController.class);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final GroupExpectations expectations;
  private final ControlLoop loop;
  /** Revisions a catch-up callback is already registered for, per workload. */
  private final Map<String, Long> waitingFor = new ConcurrentHashMap<>();
  private final AtomicLong creates = new AtomicLong();
  private final AtomicLong duplicateCreates = new AtomicLong();

  public WorkloadController(Env env, ApiClient api, Informers informers, Duration expectationBound) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.expectations = new GroupExpectations(expectationBound);
    this.loop = new ControlLoop("workloads", env, 2, this::reconcile);
    informers.workloads().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(Workload w) {
        loop.enqueue(w.metadata().name());
      }

      @Override
      public void onUpdate(Workload o, Workload w) {
        loop.enqueue(w.metadata().name());
      }

      @Override
      public void onDelete(Workload w) {
        expectations.clearAll(w.metadata().uid() + "/");
        loop.enqueue(w.metadata().name());
      }
    });
    informers.tasks().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(Task t) {
        enqueueOwner(t);
      }

      @Override
      public void onUpdate(Task o, Task t) {
        if (o.status().phase() != t.status().phase() || o.metadata().isDeleting() != t.metadata().isDeleting()) {
          enqueueOwner(t);
        }
      }

      @Override
      public void onDelete(Task t) {
        enqueueOwner(t);
      }
    });
    informers.claims().addHandler(new EventHandler<>() {
      @Override
      public void onUpdate(ResourceClaim o, ResourceClaim c) {
        if (!o.status().conditions().equals(c.status().conditions())) {
          Optional.ofNullable(c.metadata().labels().get(Labels.WORKLOAD)).ifPresent(loop::enqueue);
        }
      }
    });
    informers.deviceClasses().addHandler(new EventHandler<>() {
      @Override
      public void onAdd(DeviceClass c) {
        informers.workloads().cache().keys().forEach(loop::enqueue);
      }

      @Override
      public void onDelete(DeviceClass c) {
        informers.workloads().cache().keys().forEach(loop::enqueue);
      }
    });
  }

  public ControlLoop loop() {
    return loop;
  }

  /** Times a group waited past the bound for the cache and was read live instead (a metric). */
  public long expectationTimeouts() {
    return expectations.timeouts();
  }

  /** Tasks created. */
  public long creates() {
    return creates.get();
  }

  /** Creates that found the name taken (a stale view got through; should stay 0). */
  public long duplicateCreates() {
    return duplicateCreates.get();
  }

  private void enqueueOwner(Task t) {
    Optional.ofNullable(t.metadata().labels().get(Labels.WORKLOAD)).ifPresent(loop::enqueue);
  }

  Result reconcile(String name) {
    try {
      return reconcileOnce(name);
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.AlreadyExists) || e.is(Reason.NotFound)) {
        LOG.debug("workload {}: {}; retrying", name, e.getMessage());
        return Result.requeue();
      }
      throw e;
    }
  }

  private Result reconcileOnce(String name) {
    var cached = informers.workloads().cache().get(name);
    if (cached.isEmpty()) {
      waitingFor.remove(name);
      return Result.done();
    }
    var w = cached.get();
    if (w.metadata().isDeleting()) {
      return cascade(w);
    }
    if (!w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      var f = new ArrayList<>(w.metadata().finalizers());
      f.add(Labels.TASKS_FINALIZER);
      api.update(w.withMetadata(w.metadata().withFinalizers(f)));
      return Result.done(); // the update brings us back with the new revision
    }
    Optional<Duration> recheck = Optional.empty();
    Optional<Workload> live = Optional.empty();
    var groups = new ArrayList<GroupStatus>();
    Optional<Condition> createProblem = Optional.empty();
    for (var group : w.spec().groups()) {
      var key = w.metadata().uid() + "/" + group.name();
      var gate = expectations.gate(key, informers.tasks().syncedRevision(), env.nanoTime());
      List<Task> view;
      switch (gate) {
        case GroupExpectations.Gate.Open o -> view = cachedTasks(name, group.name());
        case GroupExpectations.Gate.Waiting wait -> {
          whenCaughtUp(name, wait.revision());
          recheck = Optional.of(recheck.map(r -> r.compareTo(wait.left()) < 0 ? r : wait.left()).orElse(wait.left()));
          groups.add(GroupPlan.status(group, w.metadata().uid(), cachedTasks(name, group.name())));
          continue;
        }
        case GroupExpectations.Gate.TimedOut t -> {
          LOG.warn("workload {} group {}: task cache did not reach revision {} within the bound; reading live",
              name, group.name(), t.revision());
          view = api.list(Kinds.TASK, LabelSelector.equalTo(Map.of(Labels.WORKLOAD, name, Labels.GROUP, group.name()))).items();
          expectations.clear(key);
        }
      }
      var plan = GroupPlan.decide(name, w.metadata().uid(), group, view);
      for (var t : plan.delete()) {
        delete(key, t);
      }
      if (!plan.create().isEmpty()) {
        if (live.isEmpty()) {
          live = api.get(Kinds.WORKLOAD, name);
        }
        if (live.filter(l -> l.metadata().uid().equals(w.metadata().uid())
            && l.metadata().generation() == w.metadata().generation() && !l.metadata().isDeleting()).isEmpty()) {
          // The spec moved on (maybe scaled down) and our cache has not shown it: wait for it.
          groups.add(GroupPlan.status(group, w.metadata().uid(), view));
          continue;
        }
        for (int ordinal : plan.create()) {
          var problem = create(key, w, group, ordinal);
          if (problem.isPresent()) {
            createProblem = problem;
            break;
          }
        }
      }
      groups.add(GroupPlan.status(group, w.metadata().uid(), view));
    }
    deleteRemovedGroups(w);
    writeStatus(w, groups, createProblem);
    return recheck.map(Result::requeueAfter).orElse(Result.done());
  }

  private List<Task> cachedTasks(String workload, String group) {
    return informers.tasks().cache().byIndex(Informers.BY_GROUP, workload + "/" + group);
  }

  private void whenCaughtUp(String name, long revision) {
    if (!Long.valueOf(revision).equals(waitingFor.put(name, revision))) {
      informers.tasks().whenCaughtUp(revision, () -> loop.enqueue(name));
    }
  }

  private void delete(String key, Task t) {
    try {
      var result = api.delete(Kinds.TASK, t.metadata().name());
      long revision = switch (result) {
        case DeleteResult.Deleted<Task> d -> d.object().metadata().revision();
        case DeleteResult.Terminating<Task> d -> d.object().metadata().revision();
      };
      expectations.wrote(key, t.metadata().name(), "delete", revision, env.nanoTime());
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }

  private Optional<Condition> create(String key, Workload w, WorkerGroup group, int ordinal) {
    var name = TaskNames.task(w.metadata().name(), group.name(), ordinal);
    var tmpl = group.template();
    var labels = new HashMap<>(tmpl.labels());
    labels.put(Labels.WORKLOAD, w.metadata().name());
    labels.put(Labels.GROUP, group.name());
    labels.put(Labels.ORDINAL, Integer.toString(ordinal));
    var claims = group.claimTemplates().stream().map(c -> TaskNames.claim(name, c.name())).toList();
    var meta = ObjectMeta.named(name).withLabels(labels).withOwner(OwnerReference.of(w))
        .withFinalizers(List.of(Labels.CLAIMS_FINALIZER));
    var spec = new TaskSpec(Optional.empty(), tmpl.command(), tmpl.env(), claims, tmpl.volumes(), tmpl.runtime(), tmpl.image(),
        tmpl.onDeviceLoss());
    try {
      var created = api.create(new Task(meta, spec, TaskStatus.EMPTY));
      creates.incrementAndGet();
      expectations.wrote(key, name, "create", created.metadata().revision(), env.nanoTime());
      return Optional.empty();
    } catch (ApiException e) {
      if (e.is(Reason.AlreadyExists)) {
        duplicateCreates.incrementAndGet();
        LOG.warn("task {} already exists: our view was stale", name);
        throw e; // retried with backoff, on a fresher view
      }
      if (e.is(Reason.Invalid)) {
        return Optional.of(Conditions.of(TASKS_CREATED, false, "Invalid", e.getMessage()));
      }
      throw e;
    }
  }

  private void deleteRemovedGroups(Workload w) {
    Set<String> groups = new HashSet<>();
    w.spec().groups().forEach(g -> groups.add(g.name()));
    for (var t : informers.tasks().cache().byIndex(Informers.BY_WORKLOAD, w.metadata().name())) {
      var g = t.metadata().labels().getOrDefault(Labels.GROUP, "");
      if (!groups.contains(g) && !t.metadata().isDeleting()) {
        delete(w.metadata().uid() + "/" + g, t);
      }
    }
  }

  private Result cascade(Workload w) {
    var name = w.metadata().name();
    // A live list: removing the finalizer is final, so it must not rest on a stale cache.
    var tasks = api.list(Kinds.TASK, LabelSelector.equalTo(Map.of(Labels.WORKLOAD, name))).items().stream()
        .filter(t -> t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false))
        .toList();
    for (var t : tasks) {
      if (!t.metadata().isDeleting()) {
        delete(w.metadata().uid() + "/" + t.metadata().labels().getOrDefault(Labels.GROUP, ""), t);
      }
    }
    if (!tasks.isEmpty() || !w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      return Result.done(); // task deletions bring us back
    }
    var f = new ArrayList<>(w.metadata().finalizers());
    f.remove(Labels.TASKS_FINALIZER);
    api.update(w.withMetadata(w.metadata().withFinalizers(f)));
    expectations.clearAll(w.metadata().uid() + "/");
    return Result.done();
  }

  private void writeStatus(Workload w, List<GroupStatus> groups, Optional<Condition> createProblem) {
    var now = env.now();
    var conditions = w.status().conditions();
    conditions = Conditions.set(conditions, schedulable(w), now);
    conditions = Conditions.set(conditions,
        createProblem.orElse(Conditions.of(TASKS_CREATED, true, "Created", "every wanted task exists or is being replaced")), now);
    var status = new WorkloadStatus(w.metadata().generation(), groups, conditions);
    if (!status.equals(w.status())) {
      api.updateStatus(w.withStatus(status));
    }
  }

  /**
   * False when a claim template names a device class that does not exist, or when one of the
   * workload's claims cannot be allocated; the message names the group, template and what is wrong.
   */
  private Condition schedulable(Workload w) {
    var classes = new HashSet<>(informers.deviceClasses().cache().keys());
    for (var g : w.spec().groups()) {
      for (var ct : g.claimTemplates()) {
        for (var r : ct.spec().requests()) {
          if (!classes.contains(r.deviceClassName())) {
            return Conditions.of(SCHEDULABLE, false, "NoSuchDeviceClass", "group " + g.name() + " claim template "
                + ct.name() + " request " + r.name() + " names device class '" + r.deviceClassName()
                + "', which does not exist");
          }
        }
      }
    }
    for (var g : w.spec().groups()) {
      for (var c : informers.claims().cache().byIndex(Informers.BY_GROUP, w.metadata().name() + "/" + g.name())) {
        var allocated = Condition.find(c.status().conditions(), "Allocated");
        if (allocated.isPresent() && !allocated.get().isTrue()
            && !allocated.get().reason().equals("WaitingForDevices")) {
          return Conditions.of(SCHEDULABLE, false, allocated.get().reason(),
              "claim " + c.metadata().name() + ": " + allocated.get().message());
        }
      }
    }
    return Conditions.of(SCHEDULABLE, true, "Schedulable", "every claim template names an existing device class");
  }
}
