package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.allocator.AllocatorKey.ForClaim;
import dev.quartermaster.control.allocator.AllocatorKey.ForGang;
import dev.quartermaster.control.allocator.AllocatorKey.ForNode;
import dev.quartermaster.control.allocator.AllocatorKey.ForTask;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Scheduling;
import dev.quartermaster.control.deadline.TaskDeadlines;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds pending claims to devices: a task's claims all on one node (its pinned node, the node its
 * allocated claims are on, or the best-fitting ready node), a claim without a task on any. This
 * class decides (from its {@link DeviceIndex}); the write protocol that makes double allocation
 * impossible is described in {@code package-info} and carried out by {@link AllocationWrite}. An
 * unpinned task whose claims are all allocated in one decision is pinned, reserved and Scheduled in
 * that same transaction ({@link Scheduling}).
 *
 * <p>Queue keys: {@link AllocatorKey}. A key whose claims do not fit waits in its {@link Waiters}
 * for the cluster events that could make them fit.
 */
public final class Allocator {
  private static final Logger LOG = LoggerFactory.getLogger(Allocator.class);

  private final ApiClient api;
  private final Informers informers;
  private final InFlightCommits commits = new InFlightCommits();
  private final DeviceIndex index;

  /** What {@link #index} reads a node from, under its lock. */
  private final NodeCaches caches;

  private final ControlLoop loop;
  private final Waiters waiters;
  private final AllocatorQueue queue;
  private final LegacyAdoption adoption;

  /** Lost compare-and-set races of the decisions (the writes count their own). */
  private final AtomicLong conflicts = new AtomicLong();

  private final AllocationWrite write;
  private final PlacementChecks checks;
  private final GangReservations reservations;
  private final GangMembers gangMembers;
  private final GangPlacer gangs;
  private final LineReservations line;
  private final EventRecorder events;

  public Allocator(Env env, ApiClient api, Informers informers) {
    this(env, api, informers, EventRecorder.NONE);
  }

  /**
   * @param events where a claim that cannot be placed says why (a successful allocation is not an
   *     event: the task's Scheduled event names the node, and one write per claim is spared)
   */
  public Allocator(Env env, ApiClient api, Informers informers, EventRecorder events) {
    this(env, api, informers, events, AllocatorPolicy.DEFAULT, new TaskDeadlines(env));
  }

  /**
   * @param policy {@link AllocatorPolicy#DEFAULT} but for the benches and the simulation's naive
   *     variants
   * @param deadlines when the tasks holding devices give them back (shared with the deadline
   *     controller)
   */
  public Allocator(
      Env env,
      ApiClient api,
      Informers informers,
      EventRecorder events,
      AllocatorPolicy policy,
      TaskDeadlines deadlines) {
    this.events = events;
    this.api = api;
    this.informers = informers;
    this.index = new DeviceIndex(commits, policy.packing().policy());
    this.caches = NodeCaches.of(informers);
    // Many workers, so that while one batch of decisions is in the store the next one gathers
    // (AllocationWrite's group commit). Safe: every decision compares-and-sets the node's
    // allocation record; the index steers concurrent placements to different nodes
    // (DeviceIndex#place) so they rarely collide.
    this.loop = new ControlLoop("allocator", env, 32, this::reconcile);
    this.waiters = new Waiters(this::enqueue);
    this.queue = new AllocatorQueue(this::enqueue, waiters, env, api, events);
    this.adoption = new LegacyAdoption(api, informers);
    this.write =
        new AllocationWrite(env, api, informers, index, adoption, events, policy.sliceCheck());
    this.checks = new PlacementChecks(informers);
    this.reservations = new GangReservations(api, informers, write);
    this.line =
        new LineReservations(
            new HeadOfLine(policy.backfill()),
            new HolderEnds(informers, deadlines),
            index,
            informers,
            env);
    this.gangMembers = new GangMembers(informers, index, reservations);
    this.gangs =
        new GangPlacer(
            gangMembers,
            index,
            new GangWrites(write, reservations, informers, queue, events),
            line,
            queue,
            checks,
            events);
    AllocatorTriggers.register(informers, this);
  }

  /** The queue and workers; {@link ControlLoop#start} to begin allocating. */
  public ControlLoop loop() {
    return loop;
  }

  /** Queues {@code key} (the queue dedupes). */
  public void enqueue(AllocatorKey key) {
    loop.enqueue(key.queueKey());
  }

  /** Claims bound so far by this allocator. */
  public long allocations() {
    return write.allocations();
  }

  /** Writes that lost a compare-and-set race and were retried. */
  public long conflicts() {
    return conflicts.get() + write.conflicts();
  }

  /**
   * Something about {@code node} changed in the caches: it is indexed again and its record's
   * cleaner queued; {@code event}, if the change could make a waiting key fit, is told.
   */
  void nodeChanged(String node, Optional<WakeEvent> event) {
    if (node.isEmpty()) {
      return;
    }
    index.refresh(node, caches);
    enqueue(AllocatorKey.node(node));
    event.ifPresent(waiters::happened);
  }

  /**
   * The gang ledger's reservations are now {@code ledger}: the nodes whose reserved devices changed
   * are indexed again (a reserved device is no one else's to choose; one given back may make a
   * waiting key fit), and every gang in it queued (a new leader resumes them so).
   */
  void gangLedgerChanged(GangLedgerSpec ledger) {
    index.gangReserved(ledger).forEach(n -> nodeChanged(n, Optional.of(WakeEvent.Cluster.RECORDS)));
    ledger.reservations().keySet().forEach(k -> enqueue(new AllocatorKey.ForGang(k)));
  }

  /** The record of {@code node} was deleted: our own last write of it no longer stands for it. */
  void recordDeleted(String node) {
    commits.recordDeleted(node);
  }

  /**
   * A change the index does not see (a device class, a compute domain): keys waiting for it are
   * queued.
   */
  void happened(WakeEvent event) {
    waiters.happened(event);
  }

  /**
   * A workload, task or claim went (or began going): each gang with a reservation in flight is
   * queued, so that one whose member is gone is removed and gives its devices back. The ledger
   * holds few gangs at a time; the queue dedupes.
   */
  void memberGone() {
    reservations.cachedGangs().forEach(this::enqueue);
    line.waiting().forEach(loop::enqueue);
  }

  /** The record entries held by claim {@code uid}: node → devices. */
  Map<String, Set<String>> reservationsOf(String uid) {
    return index.reservationsOf(uid);
  }

  Result reconcile(String queueKey) {
    var key = AllocatorKey.parse(queueKey);
    try {
      var ticket = waiters.take(key);
      return switch (key) {
        case ForTask t -> reconcileTask(t, ticket);
        case ForClaim c -> reconcileClaim(c, ticket);
        case ForGang g -> gangs.reconcile(g, ticket);
        case ForNode n -> keepRecord(n.name());
      };
    } catch (ApiException e) {
      if (e.is(Reason.Conflict) || e.is(Reason.NotFound) || e.is(Reason.AlreadyExists)) {
        conflicts.incrementAndGet();
        LOG.debug("{}: {}; retrying", key.queueKey(), e.getMessage());
        return Result.requeue();
      }
      throw e;
    }
  }

  private Result reconcileTask(ForTask key, Waiters.Ticket ticket) {
    var name = key.name();
    var task = informers.tasks().cache().get(name);
    if (task.isEmpty()
        || task.get().metadata().isDeleting()
        || task.get().status().phase().isFinished()) {
      return Result.done();
    }
    var t = task.get();
    var claims = new ArrayList<ResourceClaim>();
    for (var claimName : t.spec().claims()) {
      var c = informers.claims().cache().get(claimName);
      boolean mine =
          c.flatMap(x -> x.metadata().owner())
              .map(o -> o.uid().equals(t.metadata().uid()))
              .orElse(true);
      if (c.isEmpty() || !mine || c.get().metadata().isDeleting()) {
        return Result.done(); // the claim's add (or the stale one's delete) brings us back
      }
      claims.add(c.get());
    }
    if (claims.stream().allMatch(c -> c.status().allocation().isPresent())) {
      return Result.done();
    }
    // The pin decides where the rest may go: read it live, since a cached task may not show it yet.
    var live = api.get(Kinds.TASK, name).filter(x -> x.metadata().uid().equals(t.metadata().uid()));
    if (live.isEmpty()) {
      return Result.done();
    }
    var pin = live.get().spec().node();
    var nodes = new HashSet<String>();
    claims.forEach(c -> c.status().allocation().ifPresent(a -> nodes.add(a.node())));
    pin.ifPresent(nodes::add);
    if (nodes.size() > 1) {
      LOG.warn(
          "task {} has claims on, or is pinned to, several nodes {}: cannot allocate the rest",
          name,
          nodes);
      return Result.done();
    }
    // A gang's member is placed with its gang (GangPlacer), unless the gang is placed already: then
    // it only finishes what the gang's decision reserved for it, or (an elastic member, a
    // replacement) is placed on its own.
    var standing = gangMembers.standingOf(t);
    if (standing instanceof Standing.WithGang g) {
      enqueue(g.gang());
    }
    var within =
        standing instanceof Standing.Alone a ? a.within() : Optional.<TopologyValue>empty();
    // Not pinned yet: pinned to the node of its claims in the same transaction that allocates them.
    return allocate(
        key,
        ticket,
        claims,
        nodes.stream().findFirst(),
        live.filter(x -> x.spec().node().isEmpty()),
        standing instanceof Standing.Alone,
        within,
        line.endsIfPlacedNow(List.of(live.get())));
  }

  private Result reconcileClaim(ForClaim key, Waiters.Ticket ticket) {
    var name = key.name();
    var c = informers.claims().cache().get(name);
    if (c.isEmpty()
        || c.get().metadata().isDeleting()
        || c.get().status().allocation().isPresent()) {
      return Result.done(); // nothing to place; agents' prepare-state writes land here often
    }
    // A stand-alone claim that a live task names is placed with that task's other claims and on
    // the node it is pinned to (a claim deleted and created again under a scheduled task must come
    // back to the task's node, or the task waits forever); the task's own key reads its pin live.
    // Found by claim name in the tasks' cache, not by listing every task live on each claim event,
    // once the cache has seen the store at the claim's revision: a task created before the claim
    // (pinned, say, and then its claim) is in it. A cache behind the claim may not show that task
    // yet, and the claim would be placed on any node while the task waits on its own for ever: then
    // the tasks are read live, as the store has them now.
    if (!informers.tasks().hasSynced()) {
      return Result.requeue();
    }
    var named =
        informers.tasks().syncedRevision() >= c.get().metadata().revision()
            ? informers.tasks().cache().byIndex(Informers.BY_CLAIM, name)
            : api.list(Kinds.TASK).items().stream()
                .filter(t -> t.spec().claims().contains(name))
                .toList();
    var users =
        named.stream()
            .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished())
            .toList();
    if (!users.isEmpty()) {
      users.forEach(t -> enqueue(AllocatorKey.task(t.metadata().name())));
      return Result.done();
    }
    if (c.get().metadata().owner().filter(o -> o.kind().equals(Kinds.TASK.name())).isPresent()) {
      // A task's own claim is placed with its task, never alone: its task is being deleted, has
      // finished or is gone, and will not use it (alone, a gang member's claim broke G1: seed
      // 1260, the claim of a member the operator deleted placed while its gang waited).
      return Result.done();
    }
    return allocate(
        key,
        ticket,
        List.of(c.get()),
        Optional.empty(),
        Optional.empty(),
        true,
        Optional.empty(),
        OptionalLong.empty());
  }

  /**
   * @param unpinned the live task to pin to the node its claims get, if it is not pinned
   * @param mayPlace whether a node may be chosen; if not (a member of a gang not placed yet), only
   *     a reservation the gang's decision left is finished
   * @param within the nodes a chosen one must be of (a member of a placed gang that requires one
   *     value of a topology key: its gang's)
   * @param endsBy when its devices would be given back at the latest, were it placed now (empty:
   *     never known): whether it may take devices reserved for the head of the line
   */
  private Result allocate(
      AllocatorKey key,
      Waiters.Ticket ticket,
      List<ResourceClaim> claims,
      Optional<String> node,
      Optional<Task> unpinned,
      boolean mayPlace,
      Optional<TopologyValue> within,
      OptionalLong endsBy) {
    var pending = claims.stream().filter(c -> c.status().allocation().isEmpty()).toList();
    if (pending.isEmpty()) {
      return Result.done();
    }
    var classes = checks.classes();
    var refused = checks.refusal(pending, classes);
    if (refused.isPresent()) {
      return queue.block(key, ticket, pending, refused.get().why(), refused.get().message());
    }
    var resumed =
        Resumption.of(pending, node, classes, index::reservationsOf, index::schedulableView);
    if (resumed.isPresent()) {
      return commit(key, ticket, pending, resumed.get(), unpinned);
    }
    if (!mayPlace) {
      return Result.done(); // a gang's member: its gang places it
    }
    var needs = ClaimNeed.of(pending);
    var closed = line.closedTo(key, endsBy);
    var placement =
        index.place(
            needs, node, classes, within, closed.map(HeadReservation::devices).orElse(Map.of()));
    return switch (placement) {
      case Placement.Placed placed -> {
        try {
          var result = commit(key, ticket, pending, placed, unpinned);
          if (unpinned.isPresent() && closed.isEmpty()) {
            line.backfilled(placed)
                .ifPresent(words -> events.normal(unpinned.get(), "Backfilled", words));
          }
          yield result;
        } finally {
          index.commitEnded(placed.node());
          queue.commitEnded(placed.node());
        }
      }
      case Placement.Busy busy -> {
        waiters.park(key, ticket, Waiters.Wait.forCommit(busy.node()));
        yield Result.done();
      }
      case Placement.NoSuchDeviceClass p ->
          queue.block(key, ticket, pending, NoPlacement.NO_SUCH_DEVICE_CLASS, p.message());
      case Placement.Unsatisfiable p ->
          queue.block(key, ticket, pending, NoPlacement.UNSATISFIABLE, p.message());
      case Placement.Waiting p ->
          queue.block(
              key,
              ticket,
              pending,
              NoPlacement.WAITING_FOR_DEVICES,
              p.message() + closed.map(r -> "; " + line.keptOff(r)).orElse(""));
    };
  }

  /** Writes a decision (steps 2 and 3 of the protocol), or says why not. */
  private Result commit(
      AllocatorKey key,
      Waiters.Ticket ticket,
      List<ResourceClaim> pending,
      Placement.Placed placed,
      Optional<Task> unpinned) {
    return switch (write.commit(pending, placed, unpinned)) {
      case WritePlan.Commit c -> Result.done();
      case WritePlan.Stale s -> Result.requeue();
      case WritePlan.Taken t -> Result.requeue();
      case WritePlan.AwaitAdoption a -> {
        waiters.park(key, ticket, Waiters.Wait.forAdoption(a.node()));
        enqueue(AllocatorKey.node(a.node()));
        yield Result.done();
      }
    };
  }

  /**
   * A node's record: adopts its claims from before records on its first run, then cleans out
   * garbage.
   */
  private Result keepRecord(String node) {
    if (!adoption.isDone(node)) {
      if (!adoption.run(node)) {
        return Result.requeue(); // the claims' cache has not listed yet
      }
      waiters.happened(new WakeEvent.RecordAdopted(node));
    }
    return new RecordCleaner(api, informers, node).run();
  }

  static Optional<Condition> allocatedCondition(ResourceClaim c) {
    return Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED);
  }
}
