package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.workload.PhaseWriter;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskConditions;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per task: makes its claims (one per claim template, named {@code <task>-<template>}, and in a
 * workload with a compute domain {@code <task>-channels} for the domain's IMEX channels on the
 * task's node; each owned by this incarnation of the task, so every new task gets new claim uids);
 * once the task has finished, deletes them ({@link TaskTransitions#usesClaims}: it never runs
 * again, so its devices go back at once, as a finished pod's claims do, and its node's agent
 * unprepares them); and, once the task is deleting, lets it go only when none of its claims is
 * still {@code Prepared} on a node that is not fenced; then its claims are deleted and {@link
 * Labels#CLAIMS_FINALIZER} removed.
 *
 * <p>Both checks read live: removing a finalizer cannot be undone, so it must not rest on a cache
 * that has not yet seen the agent prepare a claim. Which claims to read is known without listing
 * them all (a list per deleted task made deleting a workload quadratic in its size): the task's own
 * {@code spec.claims}, which its process uses; every claim it owns in the cache; and every claim
 * this controller created for it, remembered until the task is gone ({@link #created}). Only the
 * leading task controller creates claims owned by a task, so a claim of the task that the cache has
 * not shown yet is one this one created, or one an earlier leader created before this term's fence
 * revision: until the claims cache has seen that revision, the claims are listed live as before.
 */
public final class TaskController {
  private static final Logger LOG = LoggerFactory.getLogger(TaskController.class);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;

  /**
   * Claims this controller created, by the uid of the task they belong to; forgotten when it is
   * gone.
   */
  private final Map<String, Set<String>> created = new ConcurrentHashMap<>();

  /** The revision that fenced the earlier leader's writes, once this one leads. */
  private volatile long termFence = Long.MAX_VALUE;

  public TaskController(Env env, ApiClient api, Informers informers) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    // Keys are tasks and each writes only its own claims: independent, so a burst of new tasks gets
    // its claims created concurrently (sharing the store's group commit), not one by one.
    this.loop = new ControlLoop("tasks", env, 8, this::reconcile);
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(Task t) {
                loop.enqueue(t.metadata().name());
              }

              @Override
              public void onUpdate(Task old, Task t) {
                loop.enqueue(t.metadata().name());
              }

              @Override
              public void onDelete(Task t) {
                created.remove(t.metadata().uid());
              }
            });
    // A domain created (or given another channel count) after its workloads: their channel claims
    // follow.
    informers.computeDomains().addHandler(EventHandler.onAddOrUpdate(this::enqueueUsers));
    informers
        .claims()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ResourceClaim c) {
                enqueueOwner(c); // a claim made just before its task finished goes too
              }

              @Override
              public void onUpdate(ResourceClaim o, ResourceClaim c) {
                enqueueOwner(c);
              }

              @Override
              public void onDelete(ResourceClaim c) {
                enqueueOwner(c);
              }
            });
  }

  public ControlLoop loop() {
    return loop;
  }

  /** This instance leads from {@code fenceRevision} on: no earlier leader wrote after it. */
  public void startLeading(long fenceRevision) {
    termFence = fenceRevision;
  }

  private void enqueueUsers(ComputeDomain d) {
    informers
        .claims()
        .cache()
        .byIndex(Informers.BY_DOMAIN, d.metadata().name())
        .forEach(this::enqueueOwner);
  }

  private void enqueueOwner(ResourceClaim c) {
    c.metadata()
        .owner()
        .filter(o -> o.kind().equals(Kinds.TASK.name()))
        .ifPresent(o -> loop.enqueue(o.name()));
  }

  Result reconcile(String name) {
    try {
      var task = informers.tasks().cache().get(name);
      if (task.isEmpty()) {
        return Result.done();
      }
      var t = task.get();
      if (t.metadata().isDeleting()) {
        return finish(t);
      }
      return TaskTransitions.usesClaims(t.status().phase()) ? ensureClaims(t) : release(t);
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.AlreadyExists) || e.is(Reason.NotFound)) {
        LOG.debug("task {}: {}; retrying", name, e.getMessage());
        return Result.requeue();
      }
      throw e;
    }
  }

  private Result ensureClaims(Task t) {
    var owner = t.metadata().owner().filter(o -> o.kind().equals(Kinds.WORKLOAD.name()));
    if (owner.isEmpty()) {
      return Result.done();
    }
    var workload =
        informers
            .workloads()
            .cache()
            .get(owner.get().name())
            .filter(w -> w.metadata().uid().equals(owner.get().uid()));
    var groupName = t.metadata().labels().get(Labels.GROUP);
    if (workload.isEmpty() || groupName == null) {
      return Result.done();
    }
    var group =
        workload.get().spec().groups().stream().filter(g -> g.name().equals(groupName)).findFirst();
    if (group.isEmpty()) {
      return Result.done();
    }
    boolean waiting = false;
    for (var template : group.get().claimTemplates()) {
      var claimName = TaskNames.claim(t.metadata().name(), template.name());
      waiting |=
          ensureClaim(
              t,
              claimName,
              () -> newClaim(t, workload.get(), groupName, claimName, template.spec()),
              c -> true);
    }
    var domain = workload.get().spec().computeDomain();
    if (domain.isPresent()) {
      // Until the domain exists its channel claim asks for one channel (and the allocator says the
      // domain is missing); a domain that then asks for more replaces the claim while it is
      // unallocated.
      int perTask =
          informers
              .computeDomains()
              .cache()
              .get(domain.get())
              .map(d -> d.spec().channelsPerTask())
              .orElse(1);
      var claimName = TaskNames.channelClaim(t.metadata().name());
      waiting |=
          ensureClaim(
              t,
              claimName,
              () ->
                  newClaim(
                      t, workload.get(), groupName, claimName, channelSpec(domain.get(), perTask)),
              c ->
                  c.status().allocation().isPresent()
                      || c.spec().requests().getFirst().count() == perTask);
    }
    return waiting ? Result.requeue() : Result.done();
  }

  /**
   * A finished task's own claims are deleted: what they hold goes back now, not when the task is
   * deleted (a finished job's record may stay for days). Each claim's agent finalizer keeps it
   * until its node has unprepared it; a claim made but not yet cached comes back through its add.
   */
  private Result release(Task t) {
    var uid = t.metadata().uid();
    for (var c : informers.claims().cache().byIndex(Informers.BY_OWNER, t.metadata().name())) {
      boolean owned = c.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false);
      if (owned && !c.metadata().isDeleting()) {
        LOG.debug(
            "task {} has {}: deleting its claim {}",
            t.metadata().name(),
            t.status().phase(),
            c.metadata().name());
        deleteQuietly(c.metadata().name());
      }
    }
    return Result.done();
  }

  /**
   * Creates claim {@code name} of task {@code t} unless it exists; one left by an earlier
   * incarnation of the task, or one of ours that is no longer {@code current}, is deleted first.
   * Whether it must wait for such a delete.
   */
  private boolean ensureClaim(
      Task t, String name, Supplier<ResourceClaim> make, Predicate<ResourceClaim> current) {
    var existing = informers.claims().cache().get(name);
    if (existing.isEmpty()) {
      // Remembered before the create: a create whose answer is lost may still have landed.
      created.computeIfAbsent(t.metadata().uid(), uid -> ConcurrentHashMap.newKeySet()).add(name);
      api.create(make.get());
      return false;
    }
    boolean mine =
        existing
            .get()
            .metadata()
            .owner()
            .map(o -> o.uid().equals(t.metadata().uid()))
            .orElse(false);
    if (mine && current.test(existing.get())) {
      return false;
    }
    // Left by an earlier incarnation of this task, or outdated: it must go before ours can be made.
    if (!existing.get().metadata().isDeleting()) {
      deleteQuietly(name);
    }
    return true;
  }

  /**
   * The claim for a task's IMEX channels: {@code perTask} of class {@code channel}, in {@code
   * domain}.
   */
  static ResourceClaimSpec channelSpec(String domain, int perTask) {
    return new ResourceClaimSpec(
        List.of(
            new DeviceRequest(
                WorkloadSpec.CHANNEL_CLAIM,
                ComputeDomainSpec.CHANNEL_DEVICE_CLASS,
                perTask,
                List.of())),
        Optional.of(domain));
  }

  private static ResourceClaim newClaim(
      Task t, Workload w, String group, String name, ResourceClaimSpec spec) {
    var labels =
        Map.of(
            Labels.WORKLOAD,
            w.metadata().name(),
            Labels.GROUP,
            group,
            Labels.TASK,
            t.metadata().name());
    return new ResourceClaim(
        ObjectMeta.named(name).withLabels(labels).withOwner(OwnerReference.of(t)),
        spec,
        ResourceClaimStatus.EMPTY);
  }

  private Result finish(Task t) {
    if (!t.metadata().finalizers().contains(Labels.CLAIMS_FINALIZER)) {
      return Result.done();
    }
    var uid = t.metadata().uid();
    var claims = new LinkedHashMap<String, ResourceClaim>();
    if (informers.claims().syncedRevision() < termFence) {
      // An earlier leader's claims may not be in the cache yet: every claim of the task, listed
      // live.
      api
          .list(
              Kinds.RESOURCE_CLAIM, LabelSelector.equalTo(Map.of(Labels.TASK, t.metadata().name())))
          .items()
          .stream()
          .filter(c -> c.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false))
          .forEach(c -> claims.put(c.metadata().name(), c));
    } else {
      var owned = new TreeSet<String>(created.getOrDefault(uid, Set.of()));
      informers
          .claims()
          .cache()
          .byIndex(Informers.BY_OWNER, t.metadata().name())
          .forEach(c -> owned.add(c.metadata().name()));
      for (var n : owned) {
        api.get(Kinds.RESOURCE_CLAIM, n)
            .filter(c -> c.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false))
            .ifPresent(c -> claims.put(n, c));
      }
    }
    for (var n : t.spec().claims()) {
      if (!claims.containsKey(n)) {
        api.get(Kinds.RESOURCE_CLAIM, n).ifPresent(c -> claims.put(n, c));
      }
    }
    for (var c : claims.values()) {
      var stillPrepared = preparedOn(c);
      if (stillPrepared.isPresent()) {
        LOG.debug(
            "task {} waits: claim {} is still prepared on node {}",
            t.metadata().name(),
            c.metadata().name(),
            stillPrepared.get());
        sayWhatItWaitsFor(t, c.metadata().name(), stillPrepared.get());
        return Result.done(); // the agent's unprepare updates the claim, which brings us back
      }
    }
    for (var c : claims.values()) {
      boolean owned =
          c.metadata().owner().map(o -> o.uid().equals(t.metadata().uid())).orElse(false);
      if (owned) {
        deleteQuietly(c.metadata().name());
      }
    }
    var f = new ArrayList<>(t.metadata().finalizers());
    f.remove(Labels.CLAIMS_FINALIZER);
    api.update(t.withMetadata(t.metadata().withFinalizers(f)));
    return Result.done();
  }

  /**
   * A finished task whose back-off is over is deleted to be replaced, and waits here for its
   * claims: its {@code Restarting} condition says so, and what frees them, instead of a back-off
   * long over.
   */
  private void sayWhatItWaitsFor(Task t, String claim, String node) {
    var s = t.status();
    var restarting = Condition.find(s.conditions(), TaskConditions.RESTARTING);
    if (!s.phase().isFinished() || restarting.isEmpty()) {
      return;
    }
    var agent =
        informers
            .nodes()
            .cache()
            .get(node)
            .flatMap(n -> Condition.find(n.status().conditions(), NodeConditions.AGENT_READY))
            .filter(c -> !c.isTrue());
    var message =
        "its back-off is over; it is replaced once claim "
            + claim
            + " is unprepared on node "
            + node
            + agent
                .map(
                    c ->
                        ", whose agent is not ready ("
                            + c.reason()
                            + "): that waits for the agent to come back, or, if the node is down,"
                            + " for `qm node fence "
                            + node
                            + "`")
                .orElse(", as its agent does once the task's process is gone");
    var next = Conditions.of(TaskConditions.RESTARTING, true, WAITING_FOR_CLAIMS, message);
    if (Conditions.has(s.conditions(), next)) {
      return;
    }
    api.updateStatus(
        t.withStatus(
            TaskTransitions.withConditions(
                PhaseWriter.RESTARTS, s, Conditions.set(s.conditions(), next, env.now()))));
  }

  /** {@link TaskConditions#RESTARTING}: the back-off is over; the task's claims hold it. */
  static final String WAITING_FOR_CLAIMS = "WaitingForClaims";

  /** A node where {@code c} is still prepared and that may still use it (not fenced). */
  private Optional<String> preparedOn(ResourceClaim c) {
    var fenced = new HashMap<String, Boolean>();
    return c.status().prepare().entrySet().stream()
        .filter(e -> e.getValue().phase() == PrepareState.Phase.Prepared)
        .map(Map.Entry::getKey)
        .filter(
            node ->
                !fenced.computeIfAbsent(
                    node, n -> api.get(Kinds.NODE, n).map(x -> x.spec().fenced()).orElse(false)))
        .sorted()
        .findFirst();
  }

  private void deleteQuietly(String claim) {
    try {
      api.delete(Kinds.RESOURCE_CLAIM, claim);
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }
}
