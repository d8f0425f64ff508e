package dev.quartermaster.control.cluster;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.ApiListerWatcher;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.GroupTaskCounts;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.Informer;
import dev.quartermaster.core.informer.Tally;
import java.util.List;
import java.util.Optional;

/**
 * One informer per kind the controllers read, shared by all of them, each with the secondary
 * indexes the controllers look things up by.
 */
public final class Informers {
  /** Tasks, claims and volumes by {@code <workload>/<group>}. */
  public static final String BY_GROUP = "group";

  /**
   * Tasks counted by group and owner, per phase and whether they are being deleted: what a decision
   * over a whole workload reads ({@link #taskCounts}) instead of its tasks.
   */
  public static final String BY_GROUP_STATE = "group-state";

  /** Tasks by node name; claims by allocated node; slices by node. */
  public static final String BY_NODE = "node";

  /**
   * Claims by every node that may hold their devices: the node they are allocated on, each node
   * whose prepare state or agent finalizer they carry ({@link NodeAudience}). What fencing a node
   * must free.
   */
  public static final String BY_HOLDER = "holder";

  /** Claims by owner name (the task). */
  public static final String BY_OWNER = "owner";

  /** Tasks and volumes by workload name. */
  public static final String BY_WORKLOAD = "workload";

  /** Claims by uid. */
  public static final String BY_UID = "uid";

  /** Tasks by the names of the claims they use ({@code spec.claims}). */
  public static final String BY_CLAIM = "claim";

  /** Claims by the tasks they are reserved for ({@code status.reservedFor}). */
  public static final String BY_RESERVED = "reserved";

  /** Tasks by the names of the volumes they use ({@code spec.volumes}). */
  public static final String BY_VOLUME = "volume";

  /** Claims by the compute domain they name ({@code spec.computeDomain}). */
  public static final String BY_DOMAIN = "domain";

  /** Workloads by the queue they are admitted through ({@code default} when they name none). */
  public static final String BY_QUEUE = "queue";

  /** Queues by their cohort: a cohort's decision reads its own queues, not every queue. */
  public static final String BY_COHORT = "cohort";

  /**
   * Claims the allocator said it cannot place ({@code Allocated=False} for a reason other than
   * waiting for devices), by {@code <workload>/<group>}: what makes a workload unschedulable, found
   * without looking at each of its claims.
   */
  public static final String BY_UNPLACEABLE = "unplaceable";

  private final Informer<Node> nodes;
  private final Informer<NodeAllocation> nodeAllocations;
  private final Informer<GangLedger> gangLedgers;
  private final Informer<DeviceSlice> slices;
  private final Informer<DeviceClass> deviceClasses;
  private final Informer<ResourceClaim> claims;
  private final Informer<Workload> workloads;
  private final Informer<Task> tasks;
  private final Informer<Volume> volumes;
  private final Informer<ComputeDomain> computeDomains;
  private final Informer<Queue> queues;
  private final Informer<PriorityClass> priorityClasses;
  private final Informer<QuotaLedger> quotaLedgers;

  public Informers(Env env, ApiClient api) {
    nodes = base(env, api, Kinds.NODE).build();
    nodeAllocations = base(env, api, Kinds.NODE_ALLOCATION).build();
    gangLedgers = base(env, api, Kinds.GANG_LEDGER).build();
    slices =
        base(env, api, Kinds.DEVICE_SLICE).index(BY_NODE, s -> List.of(s.spec().node())).build();
    deviceClasses = base(env, api, Kinds.DEVICE_CLASS).build();
    claims =
        base(env, api, Kinds.RESOURCE_CLAIM)
            .index(BY_GROUP, c -> groupOf(c))
            .index(
                BY_NODE, c -> c.status().allocation().map(a -> List.of(a.node())).orElse(List.of()))
            .index(
                BY_OWNER, c -> c.metadata().owner().map(o -> List.of(o.name())).orElse(List.of()))
            .index(BY_UID, c -> List.of(c.metadata().uid()))
            .index(
                BY_HOLDER,
                c ->
                    NodeAudience.of(c) instanceof NodeAudience.Nodes n
                        ? List.copyOf(n.names())
                        : List.of())
            .index(BY_RESERVED, c -> c.status().reservedFor())
            .index(BY_DOMAIN, c -> c.spec().computeDomain().map(List::of).orElse(List.of()))
            .index(BY_UNPLACEABLE, c -> unplaceable(c) ? groupOf(c) : List.of())
            .build();
    workloads =
        base(env, api, Kinds.WORKLOAD).index(BY_QUEUE, w -> List.of(w.spec().queueName())).build();
    tasks =
        base(env, api, Kinds.TASK)
            .index(BY_GROUP, t -> groupOf(t))
            .tally(
                BY_GROUP_STATE,
                new Tally<Task>(
                    t ->
                        t.metadata()
                            .owner()
                            .flatMap(
                                o ->
                                    groupOf(t).stream()
                                        .findFirst()
                                        .map(g -> groupOwner(g, o.uid()))),
                    t -> slot(t.status().phase(), t.metadata().isDeleting()),
                    TaskPhase.values().length * 2))
            .index(
                BY_WORKLOAD,
                t ->
                    Optional.ofNullable(t.metadata().labels().get(Labels.WORKLOAD))
                        .map(List::of)
                        .orElse(List.of()))
            .index(BY_NODE, t -> t.spec().node().map(List::of).orElse(List.of()))
            .index(BY_CLAIM, t -> t.spec().claims())
            .index(BY_VOLUME, t -> t.spec().volumes().stream().map(VolumeUse::name).toList())
            .build();
    volumes =
        base(env, api, Kinds.VOLUME)
            .index(BY_GROUP, v -> groupOf(v))
            .index(
                BY_WORKLOAD,
                v ->
                    Optional.ofNullable(v.metadata().labels().get(Labels.WORKLOAD))
                        .map(List::of)
                        .orElse(List.of()))
            .build();
    computeDomains = base(env, api, Kinds.COMPUTE_DOMAIN).build();
    queues = base(env, api, Kinds.QUEUE).index(BY_COHORT, q -> List.of(q.cohort())).build();
    priorityClasses = base(env, api, Kinds.PRIORITY_CLASS).build();
    quotaLedgers = base(env, api, Kinds.QUOTA_LEDGER).build();
  }

  /**
   * Whether the allocator said {@code c} cannot be placed, not merely that it waits for devices.
   */
  public static boolean unplaceable(ResourceClaim c) {
    return Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
        .filter(a -> !a.isTrue() && !a.reason().equals("WaitingForDevices"))
        .isPresent();
  }

  /** {@code <workload>/<group>} from an object's labels, if it has both. */
  /** The {@link #BY_GROUP_STATE} key: a group ({@code workload/group}) and its owner's uid. */
  private static String groupOwner(String group, String ownerUid) {
    return group + "|" + ownerUid;
  }

  private static int slot(TaskPhase phase, boolean deleting) {
    return phase.ordinal() * 2 + (deleting ? 1 : 0);
  }

  /**
   * The cached counts of {@code w}'s own tasks (by uid) of {@code group}: one look, however many
   * tasks the group has.
   */
  public GroupTaskCounts taskCounts(Workload w, String group) {
    var counts =
        tasks
            .cache()
            .tally(
                BY_GROUP_STATE, groupOwner(w.metadata().name() + "/" + group, w.metadata().uid()));
    return (phase, deleting) -> counts[slot(phase, deleting)];
  }

  public static List<String> groupOf(ApiObject o) {
    var l = o.metadata().labels();
    return Optional.ofNullable(l.get(Labels.WORKLOAD))
        .flatMap(w -> Optional.ofNullable(l.get(Labels.GROUP)).map(g -> w + "/" + g))
        .map(List::of)
        .orElse(List.of());
  }

  private static <T extends ApiObject> Informer.Builder<T> base(
      Env env, ApiClient api, Kind<T> kind) {
    return Informer.builder(
            env,
            new ApiListerWatcher<>(api, kind),
            o -> o.metadata().name(),
            o -> o.metadata().revision())
        .identity(o -> o.metadata().uid());
  }

  public void start() {
    all().forEach(Informer::start);
  }

  public void stop() {
    all().forEach(Informer::stop);
  }

  /** Whether every informer has listed once. */
  public boolean hasSynced() {
    return all().stream().allMatch(Informer::hasSynced);
  }

  private List<Informer<?>> all() {
    return List.of(
        nodes,
        nodeAllocations,
        gangLedgers,
        slices,
        deviceClasses,
        claims,
        workloads,
        tasks,
        volumes,
        computeDomains,
        queues,
        priorityClasses,
        quotaLedgers);
  }

  public Informer<Node> nodes() {
    return nodes;
  }

  public Informer<NodeAllocation> nodeAllocations() {
    return nodeAllocations;
  }

  /** The gang ledger (one object, {@code gangs}): gang decisions between commit and follow-ups. */
  public Informer<GangLedger> gangLedgers() {
    return gangLedgers;
  }

  public Informer<DeviceSlice> slices() {
    return slices;
  }

  public Informer<DeviceClass> deviceClasses() {
    return deviceClasses;
  }

  public Informer<ResourceClaim> claims() {
    return claims;
  }

  public Informer<Workload> workloads() {
    return workloads;
  }

  public Informer<Task> tasks() {
    return tasks;
  }

  public Informer<Volume> volumes() {
    return volumes;
  }

  public Informer<Queue> queues() {
    return queues;
  }

  public Informer<PriorityClass> priorityClasses() {
    return priorityClasses;
  }

  public Informer<QuotaLedger> quotaLedgers() {
    return quotaLedgers;
  }

  public Informer<ComputeDomain> computeDomains() {
    return computeDomains;
  }
}
