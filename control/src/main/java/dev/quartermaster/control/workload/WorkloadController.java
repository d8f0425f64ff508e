package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.JobEnd;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.control.admission.AdmissionGate;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each worker group of each workload at its replicas (I4), without ever acting on a view that
 * misses its own writes or on a spec that is no longer the newest: deterministic task names, {@link
 * GroupExpectations} on the revision of our last write, a live read of the workload before any
 * write ({@link SpecFreshness}: a scale-down or scale-up the cache has not shown yet stops us),
 * creation in {@link SlowStart} batches with that check between them, restarts paced by {@link
 * RestartBackoff}, and a live list of tasks when the cache stays behind too long. A task name held
 * by a task this workload does not own is reported ({@link WorkloadConditions#NAME_TAKEN}), and the
 * rest of the group goes on.
 *
 * <p>Deletion cascades: the workload carries {@link Labels#TASKS_FINALIZER}; once it is deleting,
 * its tasks are deleted, and the finalizer goes when a live list shows none left. Each task carries
 * {@link Labels#CLAIMS_FINALIZER}, handled by {@link TaskController}.
 */
public final class WorkloadController {
  /** How long a group waits for the cache to show our writes before it reads live. */
  public static final Duration DEFAULT_EXPECTATION_BOUND = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(WorkloadController.class);

  /** How late the status counts may follow a task moving between unfinished phases. */
  static final Duration COUNTS_PASS_DELAY = Duration.ofMillis(200);

  private final Env env;
  private final ApiClient api;
  private final AdmissionGate admission;
  private final Informers informers;
  private final GroupExpectations expectations;
  private final ControlLoop loop;
  private final TaskWriter writer;
  private final Restarts restarts;
  private final EventRecorder events;
  private final WorkloadCascade cascade;
  private final GroupViews groupViews;
  private final TaskCreation creation;
  private final Leftovers leftovers;
  private final StatusLines lines;
  private final GangRecovery recovery;
  private final PartialGangs partialGangs;

  public WorkloadController(Env env, ApiClient api, Informers informers, WorkloadOptions options) {
    this.env = env;
    this.recovery = options.recovery();
    this.admission = options.admission();
    this.events = options.events();
    this.api = api;
    this.informers = informers;
    this.expectations = new GroupExpectations(options.expectationBound());
    this.writer = new TaskWriter(env, api, expectations);
    this.restarts = new Restarts(env, api, options.backoff(), events);
    var slotVolumes = new SlotVolumes(api);
    this.cascade = new WorkloadCascade(api, writer, expectations, slotVolumes);
    this.partialGangs = new PartialGangs(env, informers, admission, writer, events, recovery);
    this.loop = new ControlLoop("workloads", env, 2, this::reconcile);
    this.groupViews = new GroupViews(env, api, informers, expectations, loop);
    this.creation =
        new TaskCreation(env, writer, expectations, slotVolumes, restarts, events, loop);
    this.leftovers = new Leftovers(informers, writer, slotVolumes, groupViews);
    this.lines = new StatusLines(env, informers, admission, recovery, groupViews);
    WorkloadTriggers.register(informers, loop, this);
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
    return writer.creates();
  }

  /** Creates that found the name taken (a stale view got through; should stay 0). */
  public long duplicateCreates() {
    return writer.duplicateCreates();
  }

  /** Queues the workload {@code o} belongs to (its label), if any. */
  void enqueueWorkloadOf(ApiObject o) {
    Optional.ofNullable(o.metadata().labels().get(Labels.WORKLOAD)).ifPresent(loop::enqueue);
  }

  /** Workload {@code uid} is gone: what this controller kept about its groups goes too. */
  void forget(String uid) {
    expectations.clearAll(uid + "/");
    creation.forget(uid);
    restarts.forgetAll(uid + "/");
    partialGangs.forget(uid);
  }

  /**
   * Task name {@code name} is free: a workload that wanted it (it was held by another) looks again.
   */
  void taskNameFreed(String name) {
    creation.taken().taskFreed(name);
  }

  /** The same for a slot volume's name. */
  void volumeNameFreed(String name) {
    creation.taken().volumeFreed(name);
  }

  /**
   * This instance leads from {@code fenceRevision} on: until its task cache has reached it, a group
   * is decided on its tasks read live, as tasks an earlier leader made may be missing from the
   * cache, and no expectation of ours says so.
   */
  public void startLeading(long fenceRevision) {
    groupViews.startLeading(fenceRevision);
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
      groupViews.forget(name);
      return Result.done();
    }
    var w = cached.get();
    if (w.metadata().isDeleting()) {
      return cascade.run(w);
    }
    if (!w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      var f = new ArrayList<>(w.metadata().finalizers());
      f.add(Labels.TASKS_FINALIZER);
      api.update(w.withMetadata(w.metadata().withFinalizers(f)));
      return Result.done(); // the update brings us back with the new revision
    }
    var freshness = new SpecFreshness(api, w);
    // Every group's view first: a gang that restarts as one is decided over all its groups.
    var pass = groupViews.of(w);
    var views = pass.byGroup();
    var recheck = pass.recheck();
    var groups = new ArrayList<GroupStatus>();
    var problems = new ArrayList<CreateProblem>();
    // A victim whose job ended before its tasks were stopped is over, not evicted: stopping it
    // would delete its results and run it again.
    boolean over = views.size() == w.spec().groups().size() && JobEnd.reached(w, views::get);
    if (admission.eviction(w).isPresent() && !over) {
      return evict(w, views, freshness);
    }
    var plans =
        GroupPlan.decideAll(name, w.metadata().uid(), w.spec(), views, recovery.lostMemberFails());
    var partialDue = partialGangs.stop(w, views, freshness);
    if (partialDue.isPresent()) {
      recheck = Recheck.earliest(recheck, partialDue.get());
    }
    for (var group : w.spec().groups()) {
      var key = w.metadata().uid() + "/" + group.name();
      var view = views.get(group.name());
      if (view == null) {
        groups.add(lines.groupAsCached(w, group));
        continue;
      }
      var plan = plans.get(group.name());
      plan.taken()
          .forEach(
              t ->
                  problems.add(
                      CreateProblem.taskTaken(
                          group.name(), t.metadata().name(), TaskWriter.holder(t))));
      // Every write, and above all a destructive one, acts on the newest spec only: a scale-down
      // from a cache that has not shown the newest replicas would delete wanted, running workers.
      if (plan.acts() && !freshness.isNewest()) {
        groups.add(lines.group(w, group, view));
        continue; // the cache's update of the workload brings us back
      }
      for (var t : plan.delete()) {
        if (!freshness.stillNewest()) {
          break;
        }
        writer.scaleDown(key, t, w.metadata().generation());
        events.normal(
            w,
            "ScaledDown",
            "deleting task "
                + t.metadata().name()
                + " (group "
                + group.name()
                + " scaled to "
                + group.replicas()
                + ")");
      }
      if (!plan.gangStop().isEmpty() && freshness.stillNewest()) {
        for (var t : plan.gangStop()) {
          writer.delete(key, t);
        }
        var gang = WorkloadGangs.ofGroup(w.spec(), group.name()).orElseThrow();
        var failed =
            gang.groups().stream()
                .map(plans::get)
                .filter(p -> p != null)
                .flatMap(
                    p -> java.util.stream.Stream.concat(p.restart().stream(), p.lost().stream()))
                .map(t -> t.metadata().name())
                .sorted()
                .distinct()
                .toList();
        events.warning(
            w,
            "GangRestarted",
            "gang "
                + name
                + "/"
                + gang.name()
                + ": member(s) "
                + String.join(",", failed)
                + " failed or were stopped (a drain, a delete); stopping the other "
                + plan.gangStop().size()
                + " member(s)"
                + (gang.wholeWorkload() ? " of group " + group.name() : "")
                + " so that the gang is placed again as a whole (onMemberFailure: RestartGang)");
      }
      var deleting = view.stream().filter(t -> t.metadata().isDeleting()).toList();
      var restartDue =
          restarts.pace(
              key,
              plan.restart(),
              deleting,
              writer,
              t -> TaskNames.ordinal(name, group.name(), t.metadata().name()).orElse(-1));
      if (restartDue.isPresent()) {
        recheck = Recheck.earliest(recheck, restartDue.get());
      }
      // Only admitted workers are created: none before the workload is admitted, and a scale-up
      // waits for its own admission.
      int admitted = admission.admittedReplicas(w, group.name());
      creation.create(
          key,
          w,
          group,
          plan.create().stream().filter(o -> o < admitted).toList(),
          problems,
          freshness);
      leftovers.releaseVolumes(w, group.name(), Optional.of(group), view, freshness);
      groups.add(lines.group(w, group, view));
    }
    leftovers.deleteRemovedGroups(w, freshness);
    // A group not seen this pass (its cache is behind) leaves the job's completion as it was.
    var complete =
        views.size() == w.spec().groups().size()
            ? Completion.condition(w.spec(), JobEnd.reached(w, views::get))
            : Condition.find(w.status().conditions(), WorkloadConditions.COMPLETE);
    var conditions = writeStatus(w, groups, lines.workloadGang(w), problems, complete);
    var expires = Completion.deleteAt(w.spec(), conditions);
    if (expires.isPresent()) {
      var left = Duration.between(env.now(), expires.get());
      if (!left.isPositive()) {
        return expire(w, freshness);
      }
      recheck = Recheck.earliest(recheck, left);
    }
    return recheck.map(Result::requeueAfter).orElse(Result.done());
  }

  /**
   * Its job is over and its TTL has run out: the workload is deleted (its tasks, their claims and
   * volumes follow through its finalizer), on the newest spec only: a scale-up in the meantime
   * means the job is not over.
   */
  private Result expire(Workload w, SpecFreshness freshness) {
    if (!freshness.stillNewest()) {
      return Result.done(); // the cache's update of the workload brings us back
    }
    var ttl = w.spec().ttlSecondsAfterFinished().orElseThrow();
    LOG.info(
        "workload {}: its job is over and its TTL of {}s ran out; deleting it",
        w.metadata().name(),
        ttl);
    api.delete(Kinds.WORKLOAD, w.metadata().name());
    events.normal(
        w,
        "Expired",
        "its job is over and spec.ttlSecondsAfterFinished (" + ttl + "s) ran out: deleted");
    return Result.done();
  }

  /**
   * {@code w} was chosen as a victim: every task of it goes, finished ones too (it starts again
   * whole once admitted again), all at once, so that no part of a gang keeps devices while the rest
   * stops. The agents give each its grace period. Its entry is released once none is left.
   */
  private Result evict(Workload w, Map<String, List<Task>> views, SpecFreshness freshness) {
    var groups = new ArrayList<GroupStatus>();
    for (var group : w.spec().groups()) {
      var view = views.get(group.name());
      if (view == null) {
        groups.add(lines.groupAsCached(w, group));
        continue;
      }
      var key = w.metadata().uid() + "/" + group.name();
      for (var t : view) {
        if (!t.metadata().isDeleting()
            && t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false)) {
          writer.delete(key, t);
        }
      }
      groups.add(lines.group(w, group, view));
    }
    leftovers.deleteRemovedGroups(w, freshness);
    writeStatus(w, groups, lines.workloadGang(w), List.of(), Optional.empty());
    return Result.done();
  }

  /** Writes the status if it changed; returns its conditions as written. */
  private List<Condition> writeStatus(
      Workload w,
      List<GroupStatus> groups,
      Optional<GangStatus> gang,
      List<CreateProblem> problems,
      Optional<Condition> complete) {
    var now = env.now();
    var conditions = w.status().conditions();
    conditions = Conditions.set(conditions, Schedulability.of(w, informers), now);
    if (admission.queued()) {
      var standing =
          QueueStanding.read(informers, w, group -> groupViews.cached(w.metadata().name(), group));
      conditions = Conditions.set(conditions, AdmissionCondition.of(w, standing), now);
    }
    conditions = Conditions.set(conditions, CreateProblem.condition(problems), now);
    conditions = Completion.apply(conditions, complete, now);
    var status = new WorkloadStatus(w.metadata().generation(), groups, conditions, gang);
    if (!status.equals(w.status())) {
      api.updateStatus(w.withStatus(status));
    }
    return conditions;
  }
}
