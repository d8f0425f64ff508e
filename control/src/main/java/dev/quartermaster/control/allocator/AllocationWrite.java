package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.GroupCommit;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.NodeReadiness;
import dev.quartermaster.control.cluster.Scheduling;
import dev.quartermaster.core.env.Env;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Steps 2 and 3 of the allocator's write protocol ({@code package-info}) for one decision of its
 * {@link DeviceIndex}: the claims, the node, its record and its slices read live; the decision
 * checked against them ({@link #plan}, pure); then the record's new entries, the claims'
 * allocations and the task's pin written in one transaction, shared with other workers' decisions
 * ({@link GroupCommit}). Thread-safe: the allocator's workers call it at once.
 */
final class AllocationWrite {
  private final Env env;
  private final ApiClient api;
  private final Informers informers;
  private final DeviceIndex index;
  private final LegacyAdoption adoption;
  private final EventRecorder events;
  private final SliceCheck sliceCheck;
  private final GroupCommit commits;
  private final NodeCaches caches;
  private final AtomicLong allocations = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();

  AllocationWrite(
      Env env,
      ApiClient api,
      Informers informers,
      DeviceIndex index,
      LegacyAdoption adoption,
      EventRecorder events,
      SliceCheck sliceCheck) {
    this.env = env;
    this.api = api;
    this.informers = informers;
    this.index = index;
    this.adoption = adoption;
    this.events = events;
    this.sliceCheck = sliceCheck;
    this.commits = new GroupCommit(api);
    this.caches = NodeCaches.of(informers);
  }

  /** Claims bound by these writes. */
  long allocations() {
    return allocations.get();
  }

  /** Decisions found stale against the live record (someone holds a chosen device). */
  long conflicts() {
    return conflicts.get();
  }

  /**
   * The write protocol (see {@code package-info}): read the claims, the node and its record live;
   * record the devices for the claims (compare-and-set on the record) unless a reservation being
   * resumed already holds them; only then write each claim's allocation (compare-and-set on the
   * claim; the store also checks it against the record), and pin the task to the node
   * (compare-and-set on the task) in the same transaction, so the scheduler finds it pinned and
   * schedules it at once. Returns the plan it carried out, or why it wrote nothing.
   */
  WritePlan commit(List<ResourceClaim> pending, Placement.Placed placed, Optional<Task> unpinned) {
    return commitAll(List.of(new Decided(pending, placed, unpinned)), false, OptionalLong.empty());
  }

  /**
   * A gang's decision: every member's claims, records and pin, as {@link #commit} writes one, all
   * in one transaction — so the store shows the gang holding devices for all of them or for none.
   * Each pin carries {@code generation}, the gang's workload spec it was decided on ({@link
   * SpecDecision#GANG_PLACED_AT}): the store refuses the whole once the spec has moved.
   */
  WritePlan commitGang(List<Decided> members, long generation) {
    return commitAll(members, true, OptionalLong.of(generation));
  }

  /**
   * Some members of a held gang reservation ({@link GangReservations}): their claims, records and
   * pins in one transaction, read live as a gang's are. The pins carry no generation: the decision
   * was judged against the workload's spec when its reservation was written, and a spec changed
   * since is the same as one changed after a gang was placed.
   */
  WritePlan commitReserved(List<Decided> members) {
    return commitAll(members, true, OptionalLong.empty());
  }

  /**
   * One placement of a decision: a task's (or a stand-alone claim's) pending claims as the cache
   * showed them, where they go, and the task to pin there if it is not pinned yet.
   */
  record Decided(List<ResourceClaim> pending, Placement.Placed placed, Optional<Task> unpinned) {
    public Decided {
      pending = List.copyOf(pending);
    }
  }

  private WritePlan commitAll(List<Decided> decided, boolean gang, OptionalLong gangPlacedAt) {
    var members = new ArrayList<Member>();
    var nodes = new HashMap<String, Node>();
    var records = new HashMap<String, Optional<NodeAllocation>>();
    var unadopted = new HashMap<String, Set<String>>();
    var offered = new HashMap<String, Set<String>>();
    for (var d : decided) {
      var live = new ArrayList<ResourceClaim>();
      for (var c : d.pending()) {
        var l =
            api.get(Kinds.RESOURCE_CLAIM, c.metadata().name())
                .filter(
                    x ->
                        x.metadata().uid().equals(c.metadata().uid())
                            && !x.metadata().isDeleting()
                            && x.status().allocation().isEmpty());
        if (l.isEmpty()) {
          return new WritePlan.Stale(
              "claim " + c.metadata().name() + " changed"); // the cache will show how
        }
        live.add(l.get());
      }
      var unpinned = d.unpinned();
      if (gang && unpinned.isPresent()) {
        // A gang's members are read live too: one pinned or gone meanwhile makes the whole stale.
        var t = unpinned.get();
        var lt =
            api.get(Kinds.TASK, t.metadata().name())
                .filter(x -> x.metadata().uid().equals(t.metadata().uid()))
                .filter(x -> x.spec().node().isEmpty() && !x.metadata().isDeleting());
        if (lt.isEmpty()) {
          return new WritePlan.Stale("task " + t.metadata().name() + " changed");
        }
        var labels = new HashMap<>(lt.get().metadata().labels());
        gangPlacedAt.ifPresent(g -> labels.put(SpecDecision.GANG_PLACED_AT, Long.toString(g)));
        unpinned = Optional.of(lt.get().withMetadata(lt.get().metadata().withLabels(labels)));
      }
      var name = d.placed().node();
      if (!nodes.containsKey(name)) {
        nodes.put(
            name,
            api.get(Kinds.NODE, name)
                .orElseThrow(() -> new ApiException(Reason.NotFound, "node " + name + " is gone")));
        records.put(name, api.get(Kinds.NODE_ALLOCATION, name));
        unadopted.put(
            name, adoption.isDone(name) ? Set.<String>of() : namedByAllocatedClaims(name));
        offered.put(name, offered(name));
      }
      members.add(new Member(live, d.placed(), unpinned));
    }
    var plan = plan(members, nodes, records, unadopted, offered, env.now());
    switch (plan) {
      case WritePlan.Taken t -> conflicts.incrementAndGet();
      case WritePlan.Commit c -> {
        var written = commits.commit(c.writes());
        c.scheduledTasks()
            .forEach(t -> events.normal(t, "Scheduled", Scheduling.scheduledEvent(t)));
        for (int i = 0; i < c.recordNodes().size(); i++) {
          var node = c.recordNodes().get(i);
          index.wrote((NodeAllocation) written.get(i), Optional.of(nodes.get(node)), caches);
        }
        allocations.addAndGet(members.stream().mapToInt(m -> m.live().size()).sum());
      }
      case WritePlan.Stale s -> {}
      case WritePlan.AwaitAdoption a -> {}
    }
    return plan;
  }

  /**
   * One placement as the live reads show it: the claims (each still pending), where they go, and
   * the live task to pin there if it is not pinned yet.
   */
  record Member(List<ResourceClaim> live, Placement.Placed placed, Optional<Task> unpinned) {
    public Member {
      live = List.copyOf(live);
    }
  }

  /**
   * What to write for decision {@code placed}, given the claims ({@code live}, each still pending),
   * the node and its record as read live; {@code unadopted}: the node's devices that allocated
   * claims name, while its record has not adopted the claims from before records (else empty);
   * {@code offered}: the devices the node's slices offer ({@link SliceCheck}).
   *
   * @param unpinned the live task to pin to the node, if it is not pinned yet
   */
  static WritePlan plan(
      List<ResourceClaim> live,
      Node node,
      Optional<NodeAllocation> record,
      Placement.Placed placed,
      Optional<Task> unpinned,
      Set<String> unadopted,
      Set<String> offered,
      Instant now) {
    var name = placed.node();
    return plan(
        List.of(new Member(live, placed, unpinned)),
        Map.of(name, node),
        Map.of(name, record),
        Map.of(name, unadopted),
        Map.of(name, offered),
        now);
  }

  /**
   * What to write for {@code members} (one, or a gang's), given each node, its record and the
   * devices its slices offer as read live (per node name): every node's new entries, then each
   * member's claims and task, for one transaction. A device the slices no longer offer is not
   * recorded: the decision is stale.
   */
  static WritePlan plan(
      List<Member> members,
      Map<String, Node> nodes,
      Map<String, Optional<NodeAllocation>> records,
      Map<String, Set<String>> unadopted,
      Map<String, Set<String>> offered,
      Instant now) {
    var adds = new TreeMap<String, Map<String, DeviceHolder>>();
    for (var m : members) {
      var placed = m.placed();
      if (!NodeReadiness.isSchedulable(nodes.get(placed.node()))) {
        return new WritePlan.Stale("node " + placed.node() + " takes no allocations now");
      }
      var held =
          records.get(placed.node()).map(NodeAllocation::spec).orElse(NodeAllocationSpec.EMPTY);
      var add = adds.computeIfAbsent(placed.node(), n -> new HashMap<>());
      for (var c : m.live()) {
        var holder = new DeviceHolder(c.metadata().name(), c.metadata().uid());
        for (var d : placed.devices().get(c.metadata().name())) {
          var holds = held.holder(d.device()).or(() -> Optional.ofNullable(add.get(d.device())));
          if (holds.isPresent() && !holds.get().uid().equals(holder.uid())) {
            return new WritePlan.Taken(d.device(), holds.get());
          }
          if (unadopted.get(placed.node()).contains(d.device())) {
            return new WritePlan.AwaitAdoption(placed.node());
          }
          if (holds.isEmpty()
              && !offered.get(placed.node()).contains(MpsShares.publishedAs(d.device()))) {
            return new WritePlan.Stale(
                "node " + placed.node() + " no longer offers device " + d.device());
          }
          if (held.holder(d.device()).isEmpty()) {
            add.put(d.device(), holder);
          }
        }
      }
    }
    // The records' new entries and the claims' allocations in one transaction (shared with other
    // workers' decisions): the store judges each claim against the record as this same
    // transaction leaves it. Nothing new to record (resuming): only the claims are written.
    var writes = new ArrayList<Write>();
    var recordNodes = new ArrayList<String>();
    adds.forEach(
        (node, add) -> {
          if (add.isEmpty()) {
            return;
          }
          var record = records.get(node);
          var held = record.map(NodeAllocation::spec).orElse(NodeAllocationSpec.EMPTY);
          recordNodes.add(node);
          writes.add(
              record.isPresent()
                  ? new Write.Update(record.get().withSpec(held.with(add)))
                  : new Write.Create(
                      new NodeAllocation(ObjectMeta.named(node), held.with(add), null)));
        });
    var scheduledTasks = new ArrayList<Task>();
    for (var m : members) {
      writes.addAll(memberWrites(m, now, scheduledTasks));
    }
    return new WritePlan.Commit(writes, recordNodes, scheduledTasks);
  }

  /**
   * One member's claims allocated, and its task pinned (and, when they are all its claims,
   * Scheduled, its claims reserved for it) — added to {@code scheduled}.
   */
  private static List<Write> memberWrites(Member m, Instant now, List<Task> scheduledOut) {
    var placed = m.placed();
    var live = m.live();
    // Claims that are all of a task's make the decision whole: the task is pinned, its claims
    // reserved for it and it is Scheduled in this same transaction (Scheduling), and the scheduler
    // finds nothing left to do: one transaction and two writes fewer per task.
    var pinned = m.unpinned().map(t -> t.withSpec(t.spec().withNode(Optional.of(placed.node()))));
    var scheduled =
        pinned.filter(t -> wholeDecision(t, live)).map(t -> Scheduling.scheduled(t, placed.node()));
    var writes = new ArrayList<Write>();
    for (var c : live) {
      var devices = placed.devices().get(c.metadata().name());
      var condition =
          Conditions.of(
              ClaimConditions.ALLOCATED,
              true,
              "Allocated",
              devices.size()
                  + " device(s) on node "
                  + placed.node()
                  + ": "
                  + String.join(",", devices.stream().map(AllocatedDevice::device).toList()));
      var s = c.status();
      var allocated =
          c.withStatus(
              new ResourceClaimStatus(
                  Optional.of(new Allocation(placed.node(), devices)),
                  s.reservedFor(),
                  s.prepare(),
                  Conditions.set(s.conditions(), condition, now)));
      var reserved = scheduled.flatMap(t -> Scheduling.reserved(allocated, t.metadata().name()));
      writes.add(new Write.UpdateWithStatus(heldBy(reserved.orElse(allocated), placed.node())));
    }
    if (scheduled.isPresent()) {
      writes.add(new Write.UpdateWithStatus(scheduled.get()));
      scheduledOut.add(scheduled.get());
    } else {
      pinned.ifPresent(t -> writes.add(new Write.Update(t)));
    }
    return writes;
  }

  /**
   * {@code c} with node {@code node}'s {@link AgentFinalizer}: from its allocation on, the claim is
   * that node's to let go, as it is once the node's agent has prepared it. The agent would put it
   * on before its prepare in a write of its own; put on here, in the allocation's transaction, it
   * costs no write: one transaction and one claim write fewer per claim, and one request fewer from
   * the agent. So a claim deleted before the node prepared it waits for the node's agent to see it
   * (it unprepares nothing and takes the finalizer off), and on a node lost meanwhile, for the node
   * to come back or be fenced, as a claim it prepared does: it may have prepared it by then.
   */
  private static ResourceClaim heldBy(ResourceClaim c, String node) {
    return new AgentFinalizer(node).on(c);
  }

  /**
   * Whether allocating {@code claims} (read live) decides all of task {@code t}: they are every
   * claim it names, each its own or stand-alone, and it is a live task still Pending. Otherwise the
   * scheduler schedules it once every claim is allocated.
   */
  private static boolean wholeDecision(Task t, List<ResourceClaim> claims) {
    var names = claims.stream().map(c -> c.metadata().name()).collect(Collectors.toSet());
    return t.status().phase() == TaskPhase.Pending
        && !t.metadata().isDeleting()
        && names.equals(new HashSet<>(t.spec().claims()))
        && claims.stream()
            .allMatch(
                c ->
                    c.metadata().owner().map(o -> o.uid().equals(t.metadata().uid())).orElse(true));
  }

  /**
   * The devices {@code node}'s slices offer, by {@link #sliceCheck}: read live (each slice the
   * cache knows for the node, and the one named after it, as its agent names it), or as cached.
   */
  private Set<String> offered(String node) {
    var cached = informers.slices().cache().byIndex(Informers.BY_NODE, node);
    var slices = cached;
    if (sliceCheck == SliceCheck.LIVE) {
      var names = new TreeSet<String>();
      names.add(node);
      cached.forEach(x -> names.add(x.metadata().name()));
      slices =
          names.stream()
              .flatMap(n -> api.get(Kinds.DEVICE_SLICE, n).stream())
              .filter(x -> x.spec().node().equals(node))
              .toList();
    }
    var out = new HashSet<String>();
    slices.forEach(x -> x.spec().devices().forEach(d -> out.add(d.name())));
    return out;
  }

  /** Devices of {@code node} that claims in our cache are allocated. */
  private Set<String> namedByAllocatedClaims(String node) {
    var out = new HashSet<String>();
    for (var c : informers.claims().cache().byIndex(Informers.BY_NODE, node)) {
      c.status().allocation().ifPresent(a -> a.devices().forEach(d -> out.add(d.device())));
    }
    return out;
  }
}
