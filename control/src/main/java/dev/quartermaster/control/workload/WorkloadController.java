package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.JobEnd;
import dev.quartermaster.api.workload.RestartBackoff;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.control.admission.AdmissionGate;
import dev.quartermaster.control.admission.Admissions;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
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

  /** Revisions a catch-up callback is already registered for, per workload. */
  private final Map<String, Long> waitingFor = new ConcurrentHashMap<>();

  private final TaskWriter writer;
  private final Restarts restarts;
  private final EventRecorder events;
  private final SlowStart slowStart = new SlowStart();
  private final WorkloadCascade cascade;
  private final SlotVolumes slotVolumes;

  /** Task names a create found held by a task we do not own → the workload that wants the name. */
  private final Map<String, String> takenBy = new ConcurrentHashMap<>();

  /** Those names → who holds them ({@code kind/name}, or made by hand), for the report. */
  private final Map<String, String> takenHolder = new ConcurrentHashMap<>();

  /** The same for slot volume names (a hand-made volume carries no label naming us). */
  private final Map<String, String> volumeTakenBy = new ConcurrentHashMap<>();

  /** Groups whose template the store refused as invalid, by group key. */
  private final Map<String, Refused> invalid = new ConcurrentHashMap<>();

  /**
   * The revision that fenced the earlier leader's writes, once this one leads; 0 for a controller
   * run on its own (tests, benches), which has no earlier leader.
   */
  private volatile long termFence;

  private final GangRecovery recovery;
  private final PartialGangs partialGangs;

  public WorkloadController(
      Env env, ApiClient api, Informers informers, Duration expectationBound) {
    this(env, api, informers, expectationBound, RestartBackoff.DEFAULT);
  }

  public WorkloadController(
      Env env,
      ApiClient api,
      Informers informers,
      Duration expectationBound,
      RestartBackoff backoff) {
    this(env, api, informers, expectationBound, backoff, EventRecorder.NONE);
  }

  /** Without queues: every replica admitted at once (tests of this controller alone). */
  public WorkloadController(
      Env env,
      ApiClient api,
      Informers informers,
      Duration expectationBound,
      RestartBackoff backoff,
      EventRecorder events) {
    this(env, api, informers, expectationBound, backoff, events, new AdmissionGate.Open());
  }

  public WorkloadController(
      Env env,
      ApiClient api,
      Informers informers,
      Duration expectationBound,
      RestartBackoff backoff,
      EventRecorder events,
      AdmissionGate admission) {
    this(env, api, informers, expectationBound, backoff, events, admission, GangRecovery.DEFAULT);
  }

  public WorkloadController(
      Env env,
      ApiClient api,
      Informers informers,
      Duration expectationBound,
      RestartBackoff backoff,
      EventRecorder events,
      AdmissionGate admission,
      GangRecovery recovery) {
    this.env = env;
    this.recovery = recovery;
    this.admission = admission;
    this.events = events;
    this.api = api;
    this.informers = informers;
    this.expectations = new GroupExpectations(expectationBound);
    this.writer = new TaskWriter(env, api, expectations);
    this.restarts = new Restarts(env, api, backoff, events);
    this.slotVolumes = new SlotVolumes(api);
    this.cascade = new WorkloadCascade(api, writer, expectations, slotVolumes);
    this.partialGangs = new PartialGangs(env, informers, admission, writer, events, recovery);
    this.loop = new ControlLoop("workloads", env, 2, this::reconcile);
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
    invalid.keySet().removeIf(k -> k.startsWith(uid + "/"));
    restarts.forgetAll(uid + "/");
    slowStart.forgetAll(uid + "/");
    partialGangs.forget(uid);
  }

  /**
   * Task name {@code name} is free: a workload that wanted it (it was held by another) looks again.
   */
  void taskNameFreed(String name) {
    takenHolder.remove(name);
    Optional.ofNullable(takenBy.remove(name)).ifPresent(loop::enqueue);
  }

  /** The same for a slot volume's name. */
  void volumeNameFreed(String name) {
    Optional.ofNullable(volumeTakenBy.remove(name)).ifPresent(loop::enqueue);
  }

  /**
   * This instance leads from {@code fenceRevision} on: until its task cache has reached it, a group
   * is decided on its tasks read live, as tasks an earlier leader made may be missing from the
   * cache, and no expectation of ours says so.
   */
  public void startLeading(long fenceRevision) {
    termFence = fenceRevision;
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
      return cascade.run(w);
    }
    if (!w.metadata().finalizers().contains(Labels.TASKS_FINALIZER)) {
      var f = new ArrayList<>(w.metadata().finalizers());
      f.add(Labels.TASKS_FINALIZER);
      api.update(w.withMetadata(w.metadata().withFinalizers(f)));
      return Result.done(); // the update brings us back with the new revision
    }
    var freshness = new SpecFreshness(api, w);
    Optional<Duration> recheck = Optional.empty();
    var groups = new ArrayList<GroupStatus>();
    var problems = new ArrayList<CreateProblem>();
    // Every group's view first: a gang that restarts as one is decided over all its groups.
    var views = new HashMap<String, List<Task>>();
    for (var group : w.spec().groups()) {
      var key = w.metadata().uid() + "/" + group.name();
      if (informers.tasks().syncedRevision() < termFence) {
        // An earlier leader's tasks may not be in the cache yet (seed 399: a scale-down decided
        // without the surplus task it had made, and a new worker created beside it): read live.
        views.put(group.name(), liveTasks(name, group.name()));
        continue;
      }
      var gate = expectations.gate(key, informers.tasks().syncedRevision(), env.nanoTime());
      switch (gate) {
        case GroupExpectations.Gate.Open o ->
            views.put(group.name(), cachedTasks(name, group.name()));
        case GroupExpectations.Gate.Waiting wait -> {
          whenCaughtUp(name, wait.revision());
          recheck = earliest(recheck, wait.left());
        }
        case GroupExpectations.Gate.TimedOut t -> {
          LOG.warn(
              "workload {} group {}: task cache did not reach revision {} within the bound; reading live",
              name,
              group.name(),
              t.revision());
          views.put(group.name(), liveTasks(name, group.name()));
          expectations.clear(key);
        }
      }
    }
    var eviction = admission.eviction(w);
    if (eviction.isPresent()) {
      return evict(w, views, freshness);
    }
    var plans =
        GroupPlan.decideAll(name, w.metadata().uid(), w.spec(), views, recovery.lostMemberFails());
    var partialDue = partialGangs.stop(w, views, freshness);
    if (partialDue.isPresent()) {
      recheck = earliest(recheck, partialDue.get());
    }
    for (var group : w.spec().groups()) {
      var key = w.metadata().uid() + "/" + group.name();
      var view = views.get(group.name());
      if (view == null) {
        groups.add(statusOf(w, group, cachedTasks(name, group.name())));
        continue;
      }
      var plan = plans.get(group.name());
      plan.taken()
          .forEach(
              t ->
                  problems.add(
                      CreateProblem.nameTaken(
                          taken(name, group.name(), t.metadata().name(), TaskWriter.holder(t)))));
      // Every write, and above all a destructive one, acts on the newest spec only: a scale-down
      // from a cache that has not shown the newest replicas would delete wanted, running workers.
      if (plan.acts() && !freshness.isNewest()) {
        groups.add(statusOf(w, group, view));
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
              key, plan.restart(), deleting, writer, t -> ordinalOf(name, group.name(), t));
      if (restartDue.isPresent()) {
        recheck = earliest(recheck, restartDue.get());
      }
      // Only admitted workers are created: none before the workload is admitted, and a scale-up
      // waits for its own admission.
      int admitted = admission.admittedReplicas(w, group.name());
      create(
          key,
          w,
          group,
          plan.create().stream().filter(o -> o < admitted).toList(),
          problems,
          freshness);
      releaseVolumes(w, group.name(), Optional.of(group), view, freshness);
      groups.add(statusOf(w, group, view));
    }
    if (freshness.isNewest()) {
      deleteRemovedGroups(w, freshness);
    }
    // A group not seen this pass (its cache is behind) leaves the job's completion as it was.
    var complete =
        views.size() == w.spec().groups().size()
            ? Completion.condition(w.spec(), JobEnd.reached(w, views::get))
            : Condition.find(w.status().conditions(), WorkloadConditions.COMPLETE);
    var conditions = writeStatus(w, groups, workloadGangStatus(w), problems, complete);
    var expires = Completion.deleteAt(w.spec(), conditions);
    if (expires.isPresent()) {
      var left = Duration.between(env.now(), expires.get());
      if (!left.isPositive()) {
        return expire(w, freshness);
      }
      recheck = earliest(recheck, left);
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
        groups.add(statusOf(w, group, cachedTasks(w.metadata().name(), group.name())));
        continue;
      }
      var key = w.metadata().uid() + "/" + group.name();
      for (var t : view) {
        if (!t.metadata().isDeleting()
            && t.metadata().owner().map(o -> o.uid().equals(w.metadata().uid())).orElse(false)) {
          writer.delete(key, t);
        }
      }
      groups.add(statusOf(w, group, view));
    }
    if (freshness.isNewest()) {
      deleteRemovedGroups(w, freshness);
    }
    writeStatus(w, groups, workloadGangStatus(w), List.of(), Optional.empty());
    return Result.done();
  }

  /**
   * One slow-start batch of the group's missing ordinals, created concurrently (each an {@code Env}
   * task, so the batch shares the store's group commit): the group's gate stays shut until every
   * create of the batch has ended ({@link GroupExpectations#expectCreates}), and the last to end
   * brings the workload back. Names held by others are reported, not waited on; a template the
   * store refuses as invalid is reported and not tried again until the spec changes.
   */
  private void create(
      String key,
      Workload w,
      WorkerGroup group,
      List<Integer> ordinals,
      List<CreateProblem> problems,
      SpecFreshness freshness) {
    var refused = invalid.get(key);
    if (refused != null && refused.generation() == w.metadata().generation()) {
      problems.add(CreateProblem.invalid("group " + group.name() + ": " + refused.message()));
      slowStart.done(key, 0, 0);
      return;
    }
    invalid.remove(key);
    int batch = slowStart.batch(key);
    int left = 0;
    var slots = new ArrayList<Slot>();
    for (int ordinal : ordinals) {
      var name = TaskNames.task(w.metadata().name(), group.name(), ordinal);
      if (w.metadata().name().equals(takenBy.get(name))) {
        // Found held by another's task: reported, and tried again only once that task is gone.
        problems.add(
            CreateProblem.nameTaken(
                taken(
                    w.metadata().name(),
                    group.name(),
                    name,
                    takenHolder.getOrDefault(name, "another task"))));
        continue;
      }
      if (slots.size() >= batch) {
        left++;
        continue;
      }
      // The slot's volumes exist before its task, so the task never names a volume that is not
      // there.
      switch (slotVolumes.ensure(w, group, ordinal)) {
        case SlotVolumes.Outcome.Ready r ->
            slots.add(new Slot(ordinal, restarts.attemptFor(key, ordinal), r.uses()));
        case SlotVolumes.Outcome.Waiting wait -> left++;
        case SlotVolumes.Outcome.Taken t -> {
          volumeTakenBy.put(t.volume(), w.metadata().name());
          problems.add(CreateProblem.nameTaken(volumeTaken(group.name(), t.volume(), t.holder())));
        }
        case SlotVolumes.Outcome.Invalid i -> {
          problems.add(CreateProblem.invalid("group " + group.name() + ": " + i.message()));
          slowStart.done(key, 0, 0);
          return;
        }
      }
    }
    // One live look at the spec for the whole batch; the store refuses each create anyway if the
    // workload's generation moved (SpecDecision).
    if (slots.isEmpty() || !freshness.stillNewest()) {
      slowStart.done(key, 0, left);
      return;
    }
    expectations.expectCreates(key, slots.size(), env.nanoTime());
    var batchOutcome = new BatchOutcome();
    for (var slot : slots) {
      env.execute(() -> createOne(key, w, group, slot, batchOutcome));
    }
    slowStart.done(key, slots.size(), left);
  }

  /** A slot of a batch: its ordinal, attempt and template volumes. */
  private record Slot(int ordinal, int attempt, List<VolumeUse> uses) {}

  /** What the creates of one batch came to, for whoever ends last. */
  private static final class BatchOutcome {
    final java.util.concurrent.atomic.AtomicBoolean wrote =
        new java.util.concurrent.atomic.AtomicBoolean();
    final java.util.concurrent.atomic.AtomicBoolean failed =
        new java.util.concurrent.atomic.AtomicBoolean();
    final java.util.concurrent.atomic.AtomicBoolean taken =
        new java.util.concurrent.atomic.AtomicBoolean();
  }

  /** A template the store refused, at the workload generation it was refused for. */
  private record Refused(long generation, String message) {}

  /**
   * One create of a batch. The last of the batch to end brings the workload back: at once if the
   * batch wrote (its gate now waits on a revision no pass has seen), after a pause if a create
   * failed (as a thrown error would be retried), and at once if a name was found taken, so that the
   * next pass reports it (that pass skips such names until their holder is gone); a batch the store
   * refused as invalid waits for a change of spec.
   */
  private void createOne(String key, Workload w, WorkerGroup group, Slot slot, BatchOutcome batch) {
    boolean written = false;
    try {
      var outcome = writer.create(key, w, group, slot.ordinal(), slot.attempt(), slot.uses());
      switch (outcome) {
        case TaskWriter.Created.Done d -> {
          written = true;
          // One event per workload counts every create; its message names the latest.
          events.normal(
              w,
              "Created",
              "created task "
                  + TaskNames.task(w.metadata().name(), group.name(), slot.ordinal())
                  + (slot.attempt() > 0 ? " (attempt " + slot.attempt() + ")" : ""));
        }
        case TaskWriter.Created.NameTaken t -> {
          takenHolder.put(t.task(), t.holder());
          takenBy.put(t.task(), w.metadata().name());
          batch.taken.set(true);
        }
        case TaskWriter.Created.Invalid i -> {
          invalid.put(key, new Refused(w.metadata().generation(), i.message()));
          events.warning(w, "FailedCreate", i.message());
        }
      }
    } catch (RuntimeException e) {
      // A stale view (the name exists), a spec that moved, the store unavailable: the next pass
      // decides again.
      batch.failed.set(true);
      LOG.debug(
          "workload {} group {}: create of ordinal {} failed: {}",
          w.metadata().name(),
          group.name(),
          slot.ordinal(),
          e.getMessage());
    } finally {
      if (written) {
        batch.wrote.set(true);
      } else {
        expectations.createEnded(key);
      }
      if (expectations.inFlight(key) == 0) {
        if (batch.wrote.get() || batch.taken.get()) {
          // A taken name is reported by that pass and not tried again until its holder is gone: no
          // loop.
          loop.enqueue(w.metadata().name());
        } else if (batch.failed.get()) {
          loop.enqueueAfter(w.metadata().name(), FAILED_BATCH_PAUSE);
        }
      }
    }
  }

  /** How long a batch whose creates all failed waits before the group is decided again. */
  private static final Duration FAILED_BATCH_PAUSE = Duration.ofSeconds(1);

  private static String volumeTaken(String group, String volume, String holder) {
    return "volume "
        + volume
        + " (group "
        + group
        + ") is taken by "
        + holder
        + "; its slot stays empty until that volume is gone (rename the workload or group, or delete the volume)";
  }

  /**
   * Deletes the group's template volumes that no slot needs any more ({@link SurplusVolumes}): a
   * destructive write, so only on the newest spec.
   */
  private void releaseVolumes(
      Workload w,
      String group,
      Optional<WorkerGroup> spec,
      List<Task> tasks,
      SpecFreshness freshness) {
    var surplus =
        SurplusVolumes.surplus(
            w.metadata().name(),
            group,
            w.metadata().uid(),
            spec,
            informers
                .volumes()
                .cache()
                .byIndex(Informers.BY_GROUP, w.metadata().name() + "/" + group),
            tasks);
    for (var v : surplus) {
      if (!freshness.stillNewest()) {
        return;
      }
      LOG.info(
          "workload {} group {}: deleting volume {}, its slot is gone",
          w.metadata().name(),
          group,
          v.metadata().name());
      slotVolumes.delete(v);
    }
  }

  private static String taken(String workload, String group, String task, String holder) {
    return "task "
        + task
        + " (group "
        + group
        + ") is taken by "
        + holder
        + "; its slot stays empty until that task is gone"
        + " (rename the workload or group, or delete the task)";
  }

  private static int ordinalOf(String workload, String group, Task t) {
    return TaskNames.ordinal(workload, group, t.metadata().name()).orElse(-1);
  }

  private static Optional<Duration> earliest(Optional<Duration> a, Duration b) {
    return Optional.of(a.filter(x -> x.compareTo(b) < 0).orElse(b));
  }

  /**
   * The group's line in the workload's status: its counts and, for a group gang, where it stands
   * ({@link GangStatuses}, from the claims' cache).
   */
  private GroupStatus statusOf(Workload w, WorkerGroup group, List<Task> tasks) {
    var counts = GroupPlan.status(group, w.metadata().uid(), tasks);
    var gang = WorkloadGangs.ofGroup(w.spec(), group.name()).filter(g -> !g.wholeWorkload());
    if (gang.isEmpty()) {
      return counts;
    }
    var previous = WorkloadGangs.statusOf(w.status(), gang.get().name());
    return counts.withGang(
        Optional.of(
            GangStatuses.of(
                gang.get(),
                w.spec(),
                w.metadata().uid(),
                Map.of(group.name(), tasks),
                claimsOf(w, gang.get()),
                g -> admission.admittedReplicas(w, g),
                recovery,
                previous,
                env.now(),
                gangAdmission(w))));
  }

  /** Where {@code w} stands with its queue, as its gangs' lines say it. */
  private GangAdmission gangAdmission(Workload w) {
    if (!admission.queued()) {
      return GangAdmission.Admitted;
    }
    if (admission.eviction(w).isPresent()) {
      return GangAdmission.Evicted;
    }
    return w.spec().groups().stream().anyMatch(g -> admission.admittedReplicas(w, g.name()) > 0)
        ? GangAdmission.Admitted
        : GangAdmission.Waiting;
  }

  /**
   * Where the workload's own gang stands, over all its groups as the caches show them: its line is
   * the workload's ({@code status.gang}), not any one group's.
   */
  private Optional<GangStatus> workloadGangStatus(Workload w) {
    var gang = WorkloadGangs.named(w.spec(), Gang.WHOLE_WORKLOAD);
    if (gang.isEmpty()) {
      return Optional.empty();
    }
    var tasks = new HashMap<String, List<Task>>();
    gang.get().groups().forEach(g -> tasks.put(g, cachedTasks(w.metadata().name(), g)));
    return Optional.of(
        GangStatuses.of(
            gang.get(),
            w.spec(),
            w.metadata().uid(),
            tasks,
            claimsOf(w, gang.get()),
            g -> admission.admittedReplicas(w, g),
            recovery,
            w.status().gang(),
            env.now(),
            gangAdmission(w)));
  }

  private List<ResourceClaim> claimsOf(Workload w, Gang gang) {
    return PartialGangs.claimsOf(informers, w, gang);
  }

  private List<Task> liveTasks(String workload, String group) {
    return api.list(
            Kinds.TASK,
            LabelSelector.equalTo(Map.of(Labels.WORKLOAD, workload, Labels.GROUP, group)))
        .items();
  }

  private List<Task> cachedTasks(String workload, String group) {
    return informers.tasks().cache().byIndex(Informers.BY_GROUP, workload + "/" + group);
  }

  private void whenCaughtUp(String name, long revision) {
    if (!Long.valueOf(revision).equals(waitingFor.put(name, revision))) {
      informers.tasks().whenCaughtUp(revision, () -> loop.enqueue(name));
    }
  }

  private void deleteRemovedGroups(Workload w, SpecFreshness freshness) {
    Set<String> groups = new HashSet<>();
    w.spec().groups().forEach(g -> groups.add(g.name()));
    var cache = informers.tasks().cache();
    int inGroups = 0;
    for (var g : groups) {
      inGroups += cache.countByIndex(Informers.BY_GROUP, w.metadata().name() + "/" + g);
    }
    // Counted first: every pass of a workload of thousands of tasks comes here, and nearly always
    // every task of the workload is in a group of its spec.
    boolean tasksOutsideGroups =
        cache.countByIndex(Informers.BY_WORKLOAD, w.metadata().name()) != inGroups;
    for (var t :
        tasksOutsideGroups
            ? cache.byIndex(Informers.BY_WORKLOAD, w.metadata().name())
            : List.<Task>of()) {
      var g = t.metadata().labels().getOrDefault(Labels.GROUP, "");
      if (!groups.contains(g) && !t.metadata().isDeleting()) {
        writer.delete(w.metadata().uid() + "/" + g, t);
      }
    }
    // A removed group's volumes go once its tasks are: judged on a live list, as no gate covers a
    // group the spec no longer has (rare: only when such volumes are cached).
    var removed = new TreeSet<String>();
    informers.volumes().cache().byIndex(Informers.BY_WORKLOAD, w.metadata().name()).stream()
        .map(v -> v.metadata().labels().getOrDefault(Labels.GROUP, ""))
        .filter(g -> !groups.contains(g))
        .forEach(removed::add);
    for (var g : removed) {
      var tasks =
          api.list(
                  Kinds.TASK,
                  LabelSelector.equalTo(
                      Map.of(Labels.WORKLOAD, w.metadata().name(), Labels.GROUP, g)))
              .items();
      releaseVolumes(w, g, Optional.empty(), tasks, freshness);
    }
  }

  private Condition admissionOf(Workload w) {
    var queue = w.spec().queueName();
    var admitted = Admissions.of(informers, w);
    var eviction = admitted.flatMap(dev.quartermaster.api.queue.Admitted::eviction);
    if (eviction.isPresent()) {
      var e = eviction.get();
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          e.reason().name(),
          (switch (e.reason()) {
                case Preempted ->
                    "preempted by " + e.by() + " (higher priority in queue " + queue + ")";
                case Reclaimed ->
                    "reclaimed for " + e.by() + ": queue " + queue + " ran on borrowed quota";
                case StartTimeout ->
                    "its tasks did not all run within its start timeout ("
                        + w.spec().startTimeout().toSeconds()
                        + "s) after it was admitted; its quota goes back";
                case OverQuota ->
                    "queue "
                        + queue
                        + " uses more than its quota lets it hold, and is set to overQuota:"
                        + " Evict; this workload gives its share back";
              })
              + "; stopping its tasks, then it waits in its queue again after a backoff");
    }
    var nomination =
        Admissions.cohortOf(informers, w)
            .flatMap(c -> informers.quotaLedgers().cache().get(c))
            .map(l -> l.spec().nominated().get(w.metadata().name()))
            .filter(n -> n.uid().equals(w.metadata().uid()));
    if (admitted.isEmpty() && nomination.isPresent()) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          WorkloadConditions.PREEMPTING,
          "waiting for "
              + nomination.get().victims().size()
              + " preempted workload(s) to stop; it is admitted first once they have");
    }
    if (admitted.isPresent()) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          true,
          WorkloadConditions.ADMITTED_BY_QUEUE,
          "admitted through queue " + queue);
    }
    var requeue =
        Admissions.cohortOf(informers, w)
            .flatMap(c -> informers.quotaLedgers().cache().get(c))
            .map(l -> l.spec().requeued().get(w.metadata().name()))
            .filter(r -> r.uid().equals(w.metadata().uid()));
    if (requeue.isPresent()) {
      var r = requeue.get();
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          WorkloadConditions.BACKING_OFF,
          "evicted ("
              + r.reason()
              + (r.count() > 1 ? ", " + r.count() + " times in a row" : "")
              + "); waits out a backoff of "
              + r.delaySeconds()
              + "s (until "
              + r.until()
              + ") before queue "
              + queue
              + " may admit it again");
    }
    if (JobEnd.reached(w, group -> cachedTasks(w.metadata().name(), group))) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          WorkloadConditions.FINISHED,
          "its job is over; its quota went back to queue " + queue);
    }
    if (informers.queues().cache().get(queue).isEmpty()) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          WorkloadConditions.NO_SUCH_QUEUE,
          "queue " + queue + " does not exist; create it, or set spec.queue to one that does");
    }
    var priority = w.spec().priority();
    if (priority.isPresent() && informers.priorityClasses().cache().get(priority.get()).isEmpty()) {
      return Conditions.of(
          WorkloadConditions.ADMITTED,
          false,
          WorkloadConditions.NO_SUCH_PRIORITY_CLASS,
          "priority class " + priority.get() + " does not exist");
    }
    return Conditions.of(
        WorkloadConditions.ADMITTED,
        false,
        WorkloadConditions.PENDING,
        "waiting in queue " + queue + " for quota; qm describe workload says why");
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
      conditions = Conditions.set(conditions, admissionOf(w), now);
    }
    var created =
        problems.isEmpty()
            ? Conditions.of(
                WorkloadConditions.TASKS_CREATED,
                true,
                WorkloadConditions.CREATED,
                "every wanted task exists or is being replaced")
            : Conditions.of(
                WorkloadConditions.TASKS_CREATED,
                false,
                CreateProblem.reasonOf(problems),
                String.join(
                    "; ",
                    problems.stream().map(CreateProblem::message).distinct().sorted().toList()));
    conditions = Conditions.set(conditions, created, now);
    conditions = Completion.apply(conditions, complete, now);
    var status = new WorkloadStatus(w.metadata().generation(), groups, conditions, gang);
    if (!status.equals(w.status())) {
      api.updateStatus(w.withStatus(status));
    }
    return conditions;
  }
}
