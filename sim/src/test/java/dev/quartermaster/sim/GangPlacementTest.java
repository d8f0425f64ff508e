package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.lifecycle.TaskScheduler;
import dev.quartermaster.control.workload.TaskController;
import dev.quartermaster.control.workload.WorkloadController;
import dev.quartermaster.control.workload.WorkloadOptions;
import dev.quartermaster.store.StoreEvent;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 32's first promise at the allocator: a gang that does not fit holds nothing; when it fits,
 * all its members' claims are allocated in one transaction. Every commit is read as it lands: the
 * set of claims holding devices must go from none of the gang's to all of them at once.
 */
class GangPlacementTest {
  private static final String JOB = "job";

  /** Per commit, how many of the gang's claims hold an allocation after it. */
  private static final class Holdings implements dev.quartermaster.sim.CommitListener {
    final Set<String> allocated = new HashSet<>();
    final List<Integer> afterEachCommit = new java.util.ArrayList<>();

    @Override
    public synchronized void committed(long revision, List<StoreEvent> changes) {
      boolean touched = false;
      for (var e : changes) {
        var key = e.kv().key();
        if (!key.startsWith("/registry/resourceclaims/" + JOB + "-")) {
          continue;
        }
        touched = true;
        var name = key.substring(key.lastIndexOf('/') + 1);
        if (e.type() == StoreEvent.Type.PUT
            && ObjectCodec.fromJson(e.kv().value(), Kinds.RESOURCE_CLAIM)
                .status()
                .allocation()
                .isPresent()) {
          allocated.add(name);
        } else {
          allocated.remove(name);
        }
      }
      if (touched) {
        afterEachCommit.add(allocated.size());
      }
    }
  }

  @Test
  void aGangThatDoesNotFitHoldsNothingAndIsPlacedWholeInOneTransactionWhenItFits() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var holdings = new Holdings();
      c.store().onCommit(holdings);
      start(c);
      c.addNode("node-0", 4);
      c.addNode("node-1", 4);
      c.addNode("node-2", 4);
      c.api().create(workload(4, 4, GangTopology.ANYWHERE));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      assertThat(holdings.allocated).as("seed %d: 12 GPUs, the gang needs 16", seed).isEmpty();
      var claim = c.api().get(Kinds.RESOURCE_CLAIM, JOB + "-workers-0-gpu").orElseThrow();
      // 16 GPUs on a fleet of 12: it can never fit as it is, and is told so.
      assertThat(claim.status().conditions().getFirst().reason()).isEqualTo("NeverFits");
      assertThat(claim.status().conditions().getFirst().message())
          .contains(
              "can never fit on this fleet: it needs 4 × (4 gpu) at once; the whole fleet (3 nodes,"
                  + " 12 gpu) holds at most 3 of its 4 members");

      c.addNode("node-3", 4);
      assertThat(c.runUntil(() -> allScheduled(c, 4), Duration.ofMinutes(2)))
          .as("seed %d: placed once it fits", seed)
          .isTrue();
      assertThat(holdings.afterEachCommit)
          .as("seed %d: from 0 to 4 allocated claims in one commit, never in between", seed)
          .allMatch(n -> n == 0 || n == 4);
    }
  }

  /**
   * A launcher of 1 × 2 GPUs and 3 workers of 4 GPUs each, one workload gang: on 12 GPUs the
   * launcher and two workers would fit, and nothing is held — no claim of either group allocated,
   * no task pinned; once a node is added, all four claims of both groups are allocated in one
   * commit. The same groups as two group gangs (how a job of several groups had to be declared
   * before) let the launcher take its GPUs alone while the workers wait.
   */
  @Test
  void aTwoGroupWorkloadGangHoldsNothingUntilItFitsThenIsPlacedWholeInOneTransaction() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var holdings = new Holdings();
      c.store().onCommit(holdings);
      start(c);
      for (int i = 0; i < 3; i++) {
        c.addNode("node-" + i, 4);
      }
      c.api().create(launcherAndWorkers(true));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      assertThat(holdings.allocated).as("seed %d: 12 GPUs, the gang needs 14", seed).isEmpty();
      for (var task : List.of(JOB + "-launcher-0", JOB + "-workers-0", JOB + "-workers-2")) {
        assertThat(c.api().get(Kinds.TASK, task).orElseThrow().spec().node())
            .as("seed %d: %s not pinned", seed, task)
            .isEmpty();
      }
      var claim = c.api().get(Kinds.RESOURCE_CLAIM, JOB + "-launcher-0-gpu").orElseThrow();
      assertThat(claim.status().conditions().getFirst().reason()).isEqualTo("NeverFits");
      assertThat(claim.status().conditions().getFirst().message())
          .contains(
              "gang job/* can never fit on this fleet: it needs 1 × (2 gpu) + 3 × (4 gpu) at once;"
                  + " the whole fleet (3 nodes, 12 gpu) holds at most 3 of its 4 members");

      c.addNode("node-3", 4);
      assertThat(
              c.runUntil(
                  () -> scheduled(c, JOB + "-launcher-0") && allScheduled(c, 3),
                  Duration.ofMinutes(2)))
          .as("seed %d: placed once it fits", seed)
          .isTrue();
      assertThat(holdings.afterEachCommit)
          .as("seed %d: from 0 to 4 allocated claims, of both groups, in one commit", seed)
          .allMatch(n -> n == 0 || n == 4)
          .contains(4);
    }
  }

  @Test
  void theSameGroupsAsTwoGroupGangsHoldTheLaunchersGpusWhileTheWorkersWait() {
    long seed = 1;
    var c = new SimCluster(seed, WatchFaults.staleCache());
    var holdings = new Holdings();
    c.store().onCommit(holdings);
    start(c);
    for (int i = 0; i < 3; i++) {
      c.addNode("node-" + i, 4);
    }
    c.api().create(launcherAndWorkers(false));
    c.runUntil(() -> false, Duration.ofMinutes(1));
    assertThat(holdings.allocated).containsExactly(JOB + "-launcher-0-gpu");
  }

  private static boolean scheduled(SimCluster c, String task) {
    return c.api()
        .get(Kinds.TASK, task)
        .filter(t -> t.status().phase() == TaskPhase.Scheduled)
        .isPresent();
  }

  /** A launcher of 1 × 2 GPUs and 3 workers × 4: one workload gang, or a group gang each. */
  private static Workload launcherAndWorkers(boolean wholeWorkload) {
    var launcher = group("launcher", 1, 2);
    var workers = group("workers", 3, 4);
    var spec =
        wholeWorkload
            ? new WorkloadSpec(
                List.of(launcher, workers),
                Optional.empty(),
                Optional.of(
                    new GangSpec(
                        Optional.empty(), MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE)))
            : new WorkloadSpec(
                List.of(launcher.withGang(GangSpec.ALL), workers.withGang(GangSpec.ALL)),
                Optional.empty());
    return new Workload(ObjectMeta.named(JOB), spec, WorkloadStatus.EMPTY);
  }

  private static WorkerGroup group(String name, int replicas, int gpus) {
    return new WorkerGroup(
        name,
        replicas,
        new TaskTemplate(List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of()),
        List.of(
            new ClaimTemplate(
                "gpu",
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()))),
        null);
  }

  @Test
  void aRequiredTopologyKeyKeepsTheGangInOneValue() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var warnings = new java.util.concurrent.CopyOnWriteArrayList<String>();
      start(
          c,
          (involved, type, reason, message) -> {
            if (reason.equals("GangNeverFits")) {
              warnings.add(message);
            }
          });
      // Two racks of two 4-GPU nodes, and a gang of 3 × 4: it fits the fleet, not one rack.
      for (int i = 0; i < 4; i++) {
        c.addNode("node-" + i, 4);
        label(c, "node-" + i, "rack-" + (i / 2));
      }
      c.api()
          .create(
              workload(
                  3,
                  4,
                  new GangTopology(
                      Optional.of("topology.quartermaster.dev/rack"), Optional.empty())));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      var claim = c.api().get(Kinds.RESOURCE_CLAIM, JOB + "-workers-0-gpu").orElseThrow();
      assertThat(claim.status().allocation()).as("seed %d", seed).isEmpty();
      // No rack holds 3 x 4 GPUs even empty: it is told it can never fit, not that it waits.
      var never =
          "gang job/workers can never fit on this fleet: it needs 3 × (4 gpu) at once on nodes of"
              + " one topology.quartermaster.dev/rack; no topology.quartermaster.dev/rack holds them"
              + " all: the largest, rack-0 (2 nodes, 8 gpu), holds at most 2 of its 3 members even"
              + " with every device free; it waits, holding nothing, until the fleet changes (nodes"
              + " join, leave or are relabelled)";
      assertThat(claim.status().conditions().getFirst().reason()).isEqualTo("NeverFits");
      assertThat(claim.status().conditions().getFirst().message()).isEqualTo(never);
      var w = c.api().get(Kinds.WORKLOAD, JOB).orElseThrow();
      assertThat(
              dev.quartermaster.api.meta.Condition.find(
                      w.status().conditions(),
                      dev.quartermaster.api.workload.WorkloadConditions.SCHEDULABLE)
                  .orElseThrow()
                  .reason())
          .isEqualTo("NeverFits");
      assertThat(w.status().groups().getFirst().gang().orElseThrow().reason())
          .isEqualTo("NeverFits");
      assertThat(warnings).as("seed %d", seed).isNotEmpty().allMatch(never::equals);
      c.addNode("node-4", 4);
      label(c, "node-4", "rack-1");
      assertThat(c.runUntil(() -> allScheduled(c, 3), Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
      for (int i = 0; i < 3; i++) {
        var node =
            c.api()
                .get(Kinds.RESOURCE_CLAIM, JOB + "-workers-" + i + "-gpu")
                .orElseThrow()
                .status()
                .allocation()
                .orElseThrow()
                .node();
        assertThat(node).as("seed %d: all in rack-1", seed).isIn("node-2", "node-3", "node-4");
      }
    }
  }

  /**
   * A gang that can never fit is judged again when a node is relabelled, not only when one joins.
   */
  @Test
  void aGangThatNeverFitsIsJudgedAgainWhenANodeIsRelabelled() {
    for (long seed : SimCluster.seeds(5)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      for (int i = 0; i < 4; i++) {
        c.addNode("node-" + i, 4);
        label(c, "node-" + i, "rack-" + (i / 2));
      }
      c.api()
          .create(
              workload(
                  3,
                  4,
                  new GangTopology(
                      Optional.of("topology.quartermaster.dev/rack"), Optional.empty())));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      assertThat(
              c.api()
                  .get(Kinds.RESOURCE_CLAIM, JOB + "-workers-0-gpu")
                  .orElseThrow()
                  .status()
                  .conditions()
                  .getFirst()
                  .reason())
          .as("seed %d", seed)
          .isEqualTo("NeverFits");
      label(c, "node-2", "rack-0");
      assertThat(c.runUntil(() -> allScheduled(c, 3), Duration.ofMinutes(2)))
          .as("seed %d: rack-0 holds 3 x 4 once node-2 is in it", seed)
          .isTrue();
    }
  }

  /**
   * A member placed after its gang (a scale-up, a replacement) goes one by one, and must still go
   * where the gang's required key holds it: here the gang's rack is full and the other rack empty,
   * so the new member waits until its rack has room.
   */
  @Test
  void aMemberPlacedAfterItsGangStaysInTheGangsRequiredValue() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      for (int i = 0; i < 4; i++) {
        c.addNode("node-" + i, 4);
        label(c, "node-" + i, "rack-" + (i / 2));
      }
      c.api()
          .create(
              workload(
                  2,
                  4,
                  new GangTopology(
                      Optional.of("topology.quartermaster.dev/rack"), Optional.empty())));
      assertThat(c.runUntil(() -> allScheduled(c, 2), Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
      var rack = rackOf(c, nodeOf(c, 0));
      assertThat(rackOf(c, nodeOf(c, 1))).as("seed %d", seed).isEqualTo(rack);
      c.scale(JOB, 3);
      c.runUntil(() -> false, Duration.ofMinutes(1));
      var third = c.api().get(Kinds.RESOURCE_CLAIM, JOB + "-workers-2-gpu").orElseThrow();
      assertThat(third.status().allocation())
          .as("seed %d: %s is full, the other rack is not the gang's", seed, rack)
          .isEmpty();
      c.addNode("node-4", 4);
      label(c, "node-4", rack);
      assertThat(c.runUntil(() -> allScheduled(c, 3), Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
      assertThat(nodeOf(c, 2)).as("seed %d", seed).isEqualTo("node-4");
    }
  }

  /**
   * An elastic gang's members beyond {@code minMember} are placed one by one once the gang is
   * placed, even when they were there, waiting, before its decision: here the third of 3 × 4 GPUs
   * (2 at least) gets the node added after the gang was placed on the first two.
   */
  @Test
  void membersBeyondMinMemberFollowTheGangsDecision() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      c.api().create(workload(3, 4, Optional.of(2), GangTopology.ANYWHERE));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      c.addNode("node-0", 4);
      c.addNode("node-1", 4);
      assertThat(c.runUntil(() -> allScheduled(c, 2), Duration.ofMinutes(2)))
          .as("seed %d: the gang of 2 placed", seed)
          .isTrue();
      c.runUntil(() -> false, Duration.ofMinutes(1));
      c.addNode("node-2", 4);
      assertThat(c.runUntil(() -> allScheduled(c, 3), Duration.ofMinutes(2)))
          .as("seed %d: the third member placed on its own", seed)
          .isTrue();
    }
  }

  /**
   * A waiting gang scaled down to what fits is placed, though nothing was freed: its decision asks
   * for what the newest spec says (3 × 4 GPUs on 8 waits; 2 × 4 fits).
   */
  @Test
  void aWaitingGangScaledDownToWhatFitsIsPlaced() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      c.addNode("node-0", 4);
      c.addNode("node-1", 4);
      c.api().create(workload(3, 4, GangTopology.ANYWHERE));
      c.runUntil(() -> false, Duration.ofMinutes(1));
      assertThat(c.api().get(Kinds.RESOURCE_CLAIM, JOB + "-workers-0-gpu").orElseThrow())
          .as("seed %d", seed)
          .matches(x -> x.status().allocation().isEmpty());
      c.scale(JOB, 2);
      assertThat(c.runUntil(() -> allScheduled(c, 2), Duration.ofMinutes(1)))
          .as("seed %d: placed as the newest spec asks", seed)
          .isTrue();
    }
  }

  /**
   * A member whose claim is deleted under its running process still holds its devices (its node's
   * agent lets them go only when the process ends): its gang stays placed, and a member replaced
   * meanwhile goes one by one. Here members 1 and 2 hold only through such claims, member 0 is
   * replaced, and one node is free: it gets it, rather than waiting for minMember to fit at once.
   * The gang replaces members one by one ({@code RestartMember}): under {@code RestartGang} a
   * member deleted from outside stops the others (issue 44).
   */
  @Test
  void aMemberHoldingDevicesThroughADeletedClaimKeepsItsGangPlaced() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      for (int i = 0; i < 3; i++) {
        c.addNode("node-" + i, 4);
      }
      c.api()
          .create(
              workload(
                  3, 4, Optional.of(2), MemberFailurePolicy.RestartMember, GangTopology.ANYWHERE));
      assertThat(c.runUntil(() -> allScheduled(c, 3), Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
      for (int i = 1; i <= 2; i++) {
        var name = JOB + "-workers-" + i + "-gpu";
        var claim = c.api().get(Kinds.RESOURCE_CLAIM, name).orElseThrow();
        var node = claim.status().allocation().orElseThrow().node();
        // Prepared there, its process running: the node's agent keeps it.
        var s = claim.status();
        var prepared = new java.util.HashMap<>(s.prepare());
        prepared.put(
            node,
            new PrepareState(
                PrepareState.Phase.Prepared, "", List.of(), Optional.of(c.env().now())));
        claim =
            c.api()
                .updateStatus(
                    claim.withStatus(
                        new ResourceClaimStatus(
                            s.allocation(), s.reservedFor(), prepared, s.conditions())));
        var finalizer = new AgentFinalizer(node).name();
        c.api().update(claim.withMetadata(claim.metadata().withFinalizers(List.of(finalizer))));
        c.api().delete(Kinds.RESOURCE_CLAIM, name);
      }
      var first = c.api().get(Kinds.TASK, JOB + "-workers-0").orElseThrow();
      c.api().delete(Kinds.TASK, first.metadata().name());
      assertThat(
              c.runUntil(
                  () ->
                      c.api()
                          .get(Kinds.TASK, JOB + "-workers-0")
                          .filter(t -> !t.metadata().uid().equals(first.metadata().uid()))
                          .filter(t -> t.status().phase() == TaskPhase.Scheduled)
                          .isPresent(),
                  Duration.ofMinutes(2)))
          .as("seed %d: the replaced member placed on its own", seed)
          .isTrue();
    }
  }

  /**
   * A placed member whose claim is deleted under it (an operator's mistake) gets a new claim, which
   * can go only to the node its task is pinned to; here another claim, waiting for that node, takes
   * the GPU first. The member holds nothing while its task stays pinned: the gang is partly placed,
   * and within its bound it is stopped, holding nothing, rather than its other members holding
   * their GPUs for ever (campaign seed 160 with other draws: G3). The naive judge counted a pinned
   * member as placed whatever its claims.
   */
  @Test
  void aPinnedMemberWhoseClaimWasMadeAgainAndCannotBePlacedLeavesItsGangPartlyPlaced() {
    for (long seed : SimCluster.seeds(10)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      start(c);
      c.addNode("node-0", 3);
      c.api().create(oneGpuLauncherAndWorkers());
      assertThat(
              c.runUntil(
                  () -> scheduled(c, JOB + "-launcher-0") && allScheduled(c, 2),
                  Duration.ofMinutes(2)))
          .as("seed %d", seed)
          .isTrue();
      // Waits for node-0's next free GPU.
      c.api()
          .create(
              new ResourceClaim(
                  ObjectMeta.named("thief"),
                  new ResourceClaimSpec(
                      List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
                  ResourceClaimStatus.EMPTY));
      c.runUntil(() -> false, Duration.ofSeconds(5));
      c.api().delete(Kinds.RESOURCE_CLAIM, JOB + "-launcher-0-gpu");
      assertThat(
              c.runUntil(
                  () ->
                      claimAllocated(c, JOB + "-launcher-0-gpu")
                          || (!claimAllocated(c, JOB + "-workers-0-gpu")
                              && !claimAllocated(c, JOB + "-workers-1-gpu")),
                  Duration.ofMinutes(3)))
          .as(
              "seed %d: the gang whole again, or holding nothing (thief %s)",
              seed,
              c.api().get(Kinds.RESOURCE_CLAIM, "thief").flatMap(x -> x.status().allocation()))
          .isTrue();
    }
  }

  private static boolean claimAllocated(SimCluster c, String name) {
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, name)
        .filter(x -> !x.metadata().isDeleting() && x.status().allocation().isPresent())
        .isPresent();
  }

  /** A launcher and two workers of one GPU each, one workload gang restarted as one. */
  private static Workload oneGpuLauncherAndWorkers() {
    return new Workload(
        ObjectMeta.named(JOB),
        new WorkloadSpec(
            List.of(group("launcher", 1, 1), group("workers", 2, 1)),
            Optional.empty(),
            Optional.of(
                new GangSpec(
                    Optional.empty(), MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE))),
        WorkloadStatus.EMPTY);
  }

  private static String nodeOf(SimCluster c, int ordinal) {
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, JOB + "-workers-" + ordinal + "-gpu")
        .orElseThrow()
        .status()
        .allocation()
        .orElseThrow()
        .node();
  }

  private static String rackOf(SimCluster c, String node) {
    return c.api()
        .get(Kinds.NODE, node)
        .orElseThrow()
        .metadata()
        .labels()
        .get("topology.quartermaster.dev/rack");
  }

  private static void label(SimCluster c, String node, String rack) {
    var n = c.api().get(Kinds.NODE, node).orElseThrow();
    c.api()
        .update(
            n.withMetadata(
                n.metadata().withLabels(Map.of("topology.quartermaster.dev/rack", rack))));
  }

  private static boolean allScheduled(SimCluster c, int n) {
    for (int i = 0; i < n; i++) {
      var t = c.api().get(Kinds.TASK, JOB + "-workers-" + i);
      if (t.isEmpty() || t.get().status().phase() != TaskPhase.Scheduled) {
        return false;
      }
    }
    return true;
  }

  private static Workload workload(int replicas, int gpus, GangTopology topology) {
    return workload(replicas, gpus, Optional.empty(), topology);
  }

  private static Workload workload(
      int replicas, int gpus, Optional<Integer> minMember, GangTopology topology) {
    return workload(replicas, gpus, minMember, MemberFailurePolicy.RestartGang, topology);
  }

  private static Workload workload(
      int replicas,
      int gpus,
      Optional<Integer> minMember,
      MemberFailurePolicy policy,
      GangTopology topology) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
                "workers",
                replicas,
                new TaskTemplate(
                    List.of("train"), Map.of(), "noop", Optional.empty(), List.of(), Map.of()),
                List.of(claim),
                null)
            .withGang(new GangSpec(minMember, policy, topology));
    return new Workload(
        ObjectMeta.named(JOB),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  private static void start(SimCluster c) {
    start(c, dev.quartermaster.api.event.EventRecorder.NONE);
  }

  private static void start(SimCluster c, dev.quartermaster.api.event.EventRecorder events) {
    c.deviceClass("gpu", "gpu");
    var inf = new Informers(c.env(), c.api());
    var loops =
        List.<ControlLoop>of(
            new Allocator(c.env(), c.api(), inf, events).loop(),
            new TaskScheduler(c.env(), c.api(), inf).loop(),
            new WorkloadController(c.env(), c.api(), inf, WorkloadOptions.of(Duration.ofMinutes(5)))
                .loop(),
            new TaskController(c.env(), c.api(), inf).loop(),
            AbsentAgents.start(c, inf));
    inf.start();
    loops.forEach(ControlLoop::start);
  }
}
