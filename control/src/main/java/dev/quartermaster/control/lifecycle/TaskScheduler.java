package dev.quartermaster.control.lifecycle;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.GroupCommit;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.NodeReadiness;
import dev.quartermaster.control.cluster.Scheduling;
import dev.quartermaster.control.cluster.StaleWrites;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Optional;

/**
 * Moves a task from {@code Pending} to {@code Scheduled} once its node is known: the node all its
 * claims were allocated on (the allocator chose it), its pinned node, or — for a task without
 * claims — the ready node with the fewest tasks. It first sets {@code spec.node} (update), then
 * reserves each claim for the task ({@code status.reservedFor}), then the status, each
 * compare-and-set; a finished or deleted task's reservations are released. A task is looked at
 * again whenever any claim it names changes, whoever owns the claim. Everything after {@code
 * Scheduled} is the agent's; see {@code package-info}.
 */
public final class TaskScheduler {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TaskScheduler.class);

  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;
  private final ClaimReservations reservations;
  private final GroupCommit commits;

  private final EventRecorder events;

  public TaskScheduler(Env env, ApiClient api, Informers informers) {
    this(env, api, informers, EventRecorder.NONE);
  }

  public TaskScheduler(Env env, ApiClient api, Informers informers, EventRecorder events) {
    this.env = env;
    this.events = events;
    this.api = api;
    this.informers = informers;
    this.reservations = new ClaimReservations(api, informers);
    this.commits = new GroupCommit(api);
    // Keys are tasks, each written compare-and-set on its own object: independent, so many workers
    // let a burst of tasks share the store's group commit instead of queueing one write at a time.
    this.loop = new ControlLoop("scheduler", env, 8, this::reconcile);
    informers
        .tasks()
        .addHandler(EventHandler.onAddOrUpdate(t -> loop.enqueue(t.metadata().name())));
    informers
        .tasks()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onDelete(Task t) {
                loop.enqueue(t.metadata().name()); // to release its reservations
              }
            });
    informers
        .claims()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ResourceClaim c) {
                wakeUsers(c);
              }

              @Override
              public void onUpdate(ResourceClaim o, ResourceClaim c) {
                // The allocation, or the allocator's word on why there is none, which the task
                // repeats.
                if (!o.status().allocation().equals(c.status().allocation())
                    || !o.status().conditions().equals(c.status().conditions())
                    || !o.status().reservedFor().equals(c.status().reservedFor())) {
                  wakeUsers(c);
                }
              }
            });
  }

  /**
   * Every task that names {@code c} (owned by it or not: a stand-alone claim is shared by name),
   * and every task it is reserved for, so a reservation of a task that is gone is released.
   */
  private void wakeUsers(ResourceClaim c) {
    informers
        .tasks()
        .cache()
        .keysByIndex(Informers.BY_CLAIM, c.metadata().name())
        .forEach(loop::enqueue);
    c.status().reservedFor().forEach(loop::enqueue);
  }

  public ControlLoop loop() {
    return loop;
  }

  Result reconcile(String name) {
    return StaleWrites.requeued(this::schedule).apply(name);
  }

  private Result schedule(String name) {
    var cached = informers.tasks().cache().get(name);
    if (cached.isEmpty() || cached.get().status().phase().isFinished()) {
      reservations.release(name);
      return Result.done();
    }
    if (cached.get().metadata().isDeleting()
        || cached.get().status().phase() != TaskPhase.Pending) {
      return Result.done();
    }
    var t = cached.get();
    var nodes = new HashSet<String>();
    var claims = new ArrayList<ResourceClaim>();
    for (var claimName : t.spec().claims()) {
      var c = informers.claims().cache().get(claimName);
      if (c.isEmpty()) {
        return pending(t, "WaitingForClaims", "claim " + claimName + " does not exist yet");
      }
      // A claim of this name owned by another task is a predecessor's, on its way out: placing this
      // task by where that one is allocated would pin it to a node its own claim may never get.
      var owner = c.get().metadata().owner().filter(o -> o.kind().equals(Kinds.TASK.name()));
      if (owner.isPresent() && !owner.get().uid().equals(t.metadata().uid())) {
        return pending(
            t,
            "WaitingForClaims",
            "claim " + claimName + " still belongs to an earlier task of this name");
      }
      if (c.get().status().allocation().isEmpty()) {
        // The allocation brings us back; meanwhile the task says why it waits, in the allocator's
        // words — once it has said any: until then there is nothing to tell (a gang's members wait
        // silently for their siblings to be created), and a word of ours would only be a write
        // racing the allocator's, which pins and schedules the task itself.
        var why =
            Condition.find(c.get().status().conditions(), ClaimConditions.ALLOCATED)
                .filter(x -> !x.isTrue())
                .map(x -> x.message());
        if (why.isEmpty()) {
          return Result.done(); // the claim's next change (the allocator's word) brings us back
        }
        return pending(t, "WaitingForAllocation", "claim " + claimName + ": " + why.get());
      }
      nodes.add(c.get().status().allocation().get().node());
      claims.add(c.get());
    }
    if (nodes.size() > 1) {
      return Result.done();
    }
    Optional<String> node =
        nodes.stream().findFirst().or(() -> t.spec().node()).or(this::leastBusyReadyNode);
    if (node.isEmpty()) {
      return pending(t, "NoReadyNode", "no node is ready for tasks");
    }
    if (t.spec().node().isEmpty()) {
      api.update(t.withSpec(t.spec().withNode(node)));
      return Result.done(); // the update brings us back
    }
    if (!t.spec().node().equals(node)) {
      return pending(
          t,
          "NodeMismatch",
          "pinned to "
              + t.spec().node().get()
              + " but its claims are on "
              + node.get()
              + " (a claim made before the task that names it may be placed on any node: delete it and create it"
              + " again, and it follows the task)");
    }
    // Reserved with Scheduled, in one transaction: from then on the agent may run it, and the claim
    // must say who uses it. Concurrent decisions share the transaction (GroupCommit). (Usually the
    // allocator did all of this already, with the allocation: see Scheduling.)
    var writes = new ArrayList<Write>();
    claims.forEach(c -> reservations.reserve(c, t).ifPresent(writes::add));
    var scheduled = Scheduling.scheduled(t, node.get());
    writes.add(new Write.UpdateStatus(scheduled));
    commits.commit(writes);
    events.normal(t, "Scheduled", Scheduling.scheduledEvent(scheduled));
    return Result.done();
  }

  /**
   * How long a new task's claims may take to appear and be allocated before the task says why it
   * waits: on the usual path they take milliseconds, and a reason written then is stale at once
   * (two writes per task of a 1,000-task apply, each racing the claims' own writes).
   */
  static final Duration QUIET_START = Duration.ofSeconds(1);

  private Result pending(Task t, String reason, String message) {
    var s = t.status();
    boolean soonOver = reason.equals("WaitingForClaims") || reason.equals("WaitingForAllocation");
    if (soonOver && s.reason().isEmpty() && t.metadata().createdAt().isPresent()) {
      var age = Duration.between(t.metadata().createdAt().get(), env.now());
      if (age.compareTo(QUIET_START) < 0) {
        return Result.requeueAfter(QUIET_START.minus(age)); // still waiting then: say why
      }
    }
    if (!s.reason().equals(reason) || !s.message().equals(message)) {
      LOG.debug(
          "task {} (revision {}): Pending {}: {}",
          t.metadata().name(),
          t.metadata().revision(),
          reason,
          message);
      api.updateStatus(t.withStatus(TaskTransitions.waiting(s, reason, message)));
      // Waiting for claims to appear is routine; waiting for devices or a node may need an
      // operator.
      if (reason.equals("WaitingForClaims")) {
        events.normal(t, reason, message);
      } else {
        events.warning(t, reason, message);
      }
    }
    return Result.done();
  }

  private Optional<String> leastBusyReadyNode() {
    return informers.nodes().cache().list().stream()
        .filter(NodeReadiness::isSchedulable)
        .map(n -> n.metadata().name())
        .min(
            Comparator.comparingInt(
                    (String n) ->
                        informers.tasks().cache().keysByIndex(Informers.BY_NODE, n).size())
                .thenComparing(n -> n));
  }
}
