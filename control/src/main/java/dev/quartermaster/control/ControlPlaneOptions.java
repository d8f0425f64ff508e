package dev.quartermaster.control;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.control.admission.Requeueing;
import dev.quartermaster.control.allocator.Backfill;
import dev.quartermaster.control.allocator.Packing;
import dev.quartermaster.control.allocator.SliceCheck;
import dev.quartermaster.control.cluster.ControllerMetrics;
import dev.quartermaster.control.leader.LeaderConfig;
import dev.quartermaster.control.leader.LeaderElector;
import dev.quartermaster.control.leader.Leadership;
import dev.quartermaster.control.lifecycle.NodeLifecycle;
import dev.quartermaster.control.workload.GangRecovery;
import dev.quartermaster.control.workload.WorkloadController;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * How a {@link ControlPlane} runs: its identity and leader election, its bounds, and the policies
 * its controllers follow (the simulation's naive variants swap some).
 *
 * @param identity this instance's name in the lease (unique per process)
 * @param expectationBound how long a worker group waits for the cache before reading live
 * @param heartbeatGrace how long a node may be silent before it is NotReady
 * @param metrics told about every reconcile of every controller
 * @param packing how the allocator packs gangs: best fit, but for the bench that compares it with
 *     first fit
 * @param allocatorView what the allocator reads the cluster through, with informers of its own;
 *     empty (always, but in the simulation's naive variants): the API, through the shared ones
 * @param leaderCallbacks what the elector tells the controllers passes through this: the identity,
 *     but in the simulation's naive variants
 * @param backfill whether the waiting gang at the head of the line reserves the devices it will
 *     get: {@link Backfill#RESERVE}, but for the bench and the simulation's naive variant
 * @param gangRecovery what the workload controller does with a gang that lost part of its
 *     placement: {@link GangRecovery#DEFAULT}, but in the simulation's naive variants
 * @param requeueing what the admission controller does with admissions that do not start and with
 *     evicted workloads: {@link Requeueing#DEFAULT}, but in the simulation's naive variants
 * @param sliceCheck what the allocator checks a decision's devices against when it writes it:
 *     {@link SliceCheck#LIVE}, but in the simulation's naive variant
 * @param writeLeadership what each controller write asks before it goes out, given the elector (a
 *     lease renewed within the renew deadline): the identity, but in the partitions bench's naive
 *     {@code no-fencing} server, where writes stop only when the elector says so
 */
public record ControlPlaneOptions(
    String identity,
    LeaderConfig leader,
    Duration expectationBound,
    Duration heartbeatGrace,
    ControllerMetrics metrics,
    Packing packing,
    Optional<UnaryOperator<ApiClient>> allocatorView,
    UnaryOperator<LeaderElector.Callbacks> leaderCallbacks,
    Backfill backfill,
    GangRecovery gangRecovery,
    Requeueing requeueing,
    SliceCheck sliceCheck,
    UnaryOperator<Leadership> writeLeadership) {
  public ControlPlaneOptions {
    Objects.requireNonNull(backfill, "backfill");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(packing, "packing");
    Objects.requireNonNull(allocatorView, "allocatorView");
    Objects.requireNonNull(leaderCallbacks, "leaderCallbacks");
    Objects.requireNonNull(gangRecovery, "gangRecovery");
    Objects.requireNonNull(requeueing, "requeueing");
    Objects.requireNonNull(sliceCheck, "sliceCheck");
    Objects.requireNonNull(writeLeadership, "writeLeadership");
  }

  public ControlPlaneOptions(
      String identity,
      LeaderConfig leader,
      Duration expectationBound,
      Duration heartbeatGrace,
      ControllerMetrics metrics) {
    this(
        identity,
        leader,
        expectationBound,
        heartbeatGrace,
        metrics,
        Packing.BEST_FIT,
        Optional.empty(),
        UnaryOperator.identity(),
        Backfill.RESERVE,
        GangRecovery.DEFAULT,
        Requeueing.DEFAULT,
        SliceCheck.LIVE,
        UnaryOperator.identity());
  }

  /** Without metrics, as the simulation and the benches run. */
  public ControlPlaneOptions(
      String identity, LeaderConfig leader, Duration expectationBound, Duration heartbeatGrace) {
    this(identity, leader, expectationBound, heartbeatGrace, ControllerMetrics.NONE);
  }

  public static ControlPlaneOptions defaults(String identity) {
    return new ControlPlaneOptions(
        identity,
        LeaderConfig.DEFAULTS,
        WorkloadController.DEFAULT_EXPECTATION_BOUND,
        NodeLifecycle.DEFAULT_GRACE);
  }

  public ControlPlaneOptions withLeader(LeaderConfig config) {
    return with(b -> b.leader = config);
  }

  public ControlPlaneOptions withMetrics(ControllerMetrics sink) {
    return with(b -> b.metrics = sink);
  }

  public ControlPlaneOptions withPacking(Packing how) {
    return with(b -> b.packing = how);
  }

  /** The allocator reads the cluster through {@code view} (a naive variant of the simulation). */
  public ControlPlaneOptions withAllocatorView(UnaryOperator<ApiClient> view) {
    return with(b -> b.allocatorView = Optional.of(view));
  }

  /**
   * The workload controller treats a gang that lost part of its placement by {@code recovery} (a
   * naive variant of the simulation: the behaviour before issue 44).
   */
  public ControlPlaneOptions withGangRecovery(GangRecovery recovery) {
    return with(b -> b.gangRecovery = recovery);
  }

  /**
   * The admission controller treats admissions that do not start, and evicted workloads, by {@code
   * how} (a naive variant of the simulation: the behaviour before issue 44).
   */
  public ControlPlaneOptions withRequeueing(Requeueing how) {
    return with(b -> b.requeueing = how);
  }

  /**
   * What the elector tells the controllers passes through {@code view} (a naive variant of the
   * simulation: one that does not restart them when a term ends under them).
   */
  public ControlPlaneOptions withLeaderCallbacks(UnaryOperator<LeaderElector.Callbacks> view) {
    return with(b -> b.leaderCallbacks = view);
  }

  /**
   * Whether the head of the line reserves what it will get: {@link Backfill#RESERVE} but for the
   * bench and the simulation's naive variant, which turn it off.
   */
  public ControlPlaneOptions withBackfill(Backfill how) {
    return with(b -> b.backfill = how);
  }

  /**
   * What the allocator checks a decision's devices against when it writes it: {@link
   * SliceCheck#LIVE} but for the simulation's naive variant, which trusts its cached slices.
   */
  public ControlPlaneOptions withSliceCheck(SliceCheck how) {
    return with(b -> b.sliceCheck = how);
  }

  /**
   * These options with what {@code change} sets on a {@link Builder} that starts from their fields;
   * the record's checks run again on the result. The one way to derive options, as for the configs.
   */
  public ControlPlaneOptions with(Consumer<Builder> change) {
    var b = new Builder(this);
    change.accept(b);
    return new ControlPlaneOptions(
        b.identity,
        b.leader,
        b.expectationBound,
        b.heartbeatGrace,
        b.metrics,
        b.packing,
        b.allocatorView,
        b.leaderCallbacks,
        b.backfill,
        b.gangRecovery,
        b.requeueing,
        b.sliceCheck,
        b.writeLeadership);
  }

  /** The fields of {@link ControlPlaneOptions} being derived; see {@link #with}. */
  public static final class Builder {
    public String identity;
    public LeaderConfig leader;
    public Duration expectationBound;
    public Duration heartbeatGrace;
    public ControllerMetrics metrics;
    public Packing packing;
    public Optional<UnaryOperator<ApiClient>> allocatorView;
    public UnaryOperator<LeaderElector.Callbacks> leaderCallbacks;
    public Backfill backfill;
    public GangRecovery gangRecovery;
    public Requeueing requeueing;
    public SliceCheck sliceCheck;
    public UnaryOperator<Leadership> writeLeadership;

    private Builder(ControlPlaneOptions o) {
      identity = o.identity;
      leader = o.leader;
      expectationBound = o.expectationBound;
      heartbeatGrace = o.heartbeatGrace;
      metrics = o.metrics;
      packing = o.packing;
      allocatorView = o.allocatorView;
      leaderCallbacks = o.leaderCallbacks;
      backfill = o.backfill;
      gangRecovery = o.gangRecovery;
      requeueing = o.requeueing;
      sliceCheck = o.sliceCheck;
      writeLeadership = o.writeLeadership;
    }
  }
}
