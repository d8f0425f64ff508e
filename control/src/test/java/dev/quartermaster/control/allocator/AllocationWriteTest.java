package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What the allocator writes for one decision of its index, given the live claims, node and record
 * ({@link AllocationWrite#plan}): the record's new entries before the claims' allocations in one
 * transaction, only the claims when resuming a reservation, nothing when a chosen device is held or
 * the node takes no allocations, a wait while the node has not adopted the claims from before
 * records, nothing when the node's slices no longer offer a device to be recorded, and the task
 * pinned — and scheduled, when the decision is all of it — in the same transaction. A planner that
 * decides from the index alone, without the live record, is caught.
 */
class AllocationWriteTest {
  private static final String NODE = "node-0";
  private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  /** A planner under test: the real one, or a naive variant. */
  private interface Planner {
    WritePlan plan(
        List<ResourceClaim> live,
        Node node,
        Optional<NodeAllocation> record,
        Placement.Placed placed,
        Optional<Task> unpinned,
        Set<String> unadopted,
        Set<String> offered);
  }

  private record Row(
      String name,
      List<ResourceClaim> live,
      Node node,
      Optional<NodeAllocation> record,
      Placement.Placed placed,
      Optional<Task> unpinned,
      Set<String> unadopted,
      Set<String> offered,
      List<String> expected) {
    /** A row whose node's slices offer all its devices. */
    Row(
        String name,
        List<ResourceClaim> live,
        Node node,
        Optional<NodeAllocation> record,
        Placement.Placed placed,
        Optional<Task> unpinned,
        Set<String> unadopted,
        List<String> expected) {
      this(name, live, node, record, placed, unpinned, unadopted, ALL_OFFERED, expected);
    }
  }

  private static final Set<String> ALL_OFFERED = Set.of("gpu-0", "gpu-1", "gpu-2", "gpu-3");

  private static final Task TASK = task("t", List.of("c1"), false);
  private static final ResourceClaim C1 = claim("c1", Optional.of(TASK));
  private static final ResourceClaim C2 = claim("c2", Optional.empty());
  private static final Node READY = node(NodeSpec.EMPTY, true);

  private static List<Row> rows() {
    var gpu0 = placed(Map.of("c1", List.of("gpu-0")));
    return List.of(
        new Row(
            "free device, no record yet: the record is created with it, then the claim is allocated",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("create record {gpu-0=c1}", "allocate c1 on node-0: gpu-0 for []")),
        new Row(
            "a record exists: it gets the new entry and keeps the others",
            List.of(C1),
            READY,
            record(Map.of("gpu-1", "x")),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("update record {gpu-0=c1, gpu-1=x}", "allocate c1 on node-0: gpu-0 for []")),
        new Row(
            "two claims in one decision: one record write holds both",
            List.of(C1, C2),
            READY,
            Optional.empty(),
            placed(Map.of("c1", List.of("gpu-0"), "c2", List.of("gpu-1", "gpu-2"))),
            Optional.empty(),
            Set.of(),
            List.of(
                "create record {gpu-0=c1, gpu-1=c2, gpu-2=c2}",
                "allocate c1 on node-0: gpu-0 for []",
                "allocate c2 on node-0: gpu-1,gpu-2 for []")),
        new Row(
            "resuming: the record gives the device to this claim's uid already, so only the claim is written",
            List.of(C1),
            READY,
            record(Map.of("gpu-0", "c1")),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("allocate c1 on node-0: gpu-0 for []")),
        new Row(
            "someone holds a chosen device: nothing is written",
            List.of(C1),
            READY,
            record(Map.of("gpu-0", "x")),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("taken gpu-0 by x")),
        new Row(
            "the node was cordoned since the decision",
            List.of(C1),
            node(new NodeSpec(true, false), true),
            Optional.empty(),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("stale")),
        new Row(
            "the node is no longer DevicesReady",
            List.of(C1),
            node(NodeSpec.EMPTY, false),
            Optional.empty(),
            gpu0,
            Optional.empty(),
            Set.of(),
            List.of("stale")),
        new Row(
            "the node's slices no longer offer a chosen device (its agent found it gone): nothing is written",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.empty(),
            Set.of(),
            Set.of("gpu-1", "gpu-2", "gpu-3"),
            List.of("stale")),
        new Row(
            "resuming a device the slices no longer offer: the record gives it to this claim already, so the claim is written",
            List.of(C1),
            READY,
            record(Map.of("gpu-0", "c1")),
            gpu0,
            Optional.empty(),
            Set.of(),
            Set.of(),
            List.of("allocate c1 on node-0: gpu-0 for []")),
        new Row(
            "a claim from before records names the device and the node has not adopted it: wait for the adoption",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.empty(),
            Set.of("gpu-0"),
            List.of("await adoption of node-0")),
        new Row(
            "a holder in the record comes before the adoption",
            List.of(C1),
            READY,
            record(Map.of("gpu-0", "x")),
            gpu0,
            Optional.empty(),
            Set.of("gpu-0"),
            List.of("taken gpu-0 by x")),
        new Row(
            "the decision is all of an unpinned task: pinned, its claim reserved, Scheduled, in one transaction",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.of(TASK),
            Set.of(),
            List.of(
                "create record {gpu-0=c1}",
                "allocate c1 on node-0: gpu-0 for [t]",
                "schedule t on node-0")),
        new Row(
            "the task names a claim this decision does not place: only pinned",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.of(task("t", List.of("c1", "c3"), false)),
            Set.of(),
            List.of(
                "create record {gpu-0=c1}",
                "allocate c1 on node-0: gpu-0 for []",
                "pin t to node-0")),
        new Row(
            "the task is being deleted: only pinned, never Scheduled",
            List.of(C1),
            READY,
            Optional.empty(),
            gpu0,
            Optional.of(task("t", List.of("c1"), true)),
            Set.of(),
            List.of(
                "create record {gpu-0=c1}",
                "allocate c1 on node-0: gpu-0 for []",
                "pin t to node-0")));
  }

  /** The rows whose plan {@code planner} gets wrong, each with what it made instead. */
  private static List<String> wrong(Planner planner) {
    var out = new ArrayList<String>();
    planned(planner)
        .forEach(
            (r, plan) -> {
              var got = describe(plan);
              if (!got.equals(r.expected())) {
                out.add(r.name() + ": " + got);
              }
            });
    return out;
  }

  /** Each row's plan by {@code planner}, in the rows' order. */
  private static Map<Row, WritePlan> planned(Planner planner) {
    var out = new java.util.LinkedHashMap<Row, WritePlan>();
    for (var r : rows()) {
      out.put(
          r,
          planner.plan(
              r.live(),
              r.node(),
              r.record(),
              r.placed(),
              r.unpinned(),
              r.unadopted(),
              r.offered()));
    }
    return out;
  }

  /** The allocator's own planner, at {@link #NOW}. */
  private static final Planner REAL =
      (live, node, record, placed, unpinned, unadopted, offered) ->
          AllocationWrite.plan(live, node, record, placed, unpinned, unadopted, offered, NOW);

  @Test
  void eachDecisionIsWrittenAsTheLiveStateAllows() {
    assertThat(wrong(REAL)).isEmpty();
  }

  /**
   * The naive planner trusts the slices its index decided on (before campaign seed 979): it records
   * a device the node's agent no longer offers, which no one can prepare.
   */
  @Test
  void aPlannerThatTrustsTheCachedSlicesIsCaught() {
    assertThat(
            wrong(
                (live, node, record, placed, unpinned, unadopted, offered) ->
                    AllocationWrite.plan(
                        live, node, record, placed, unpinned, unadopted, ALL_OFFERED, NOW)))
        .singleElement()
        .asString()
        .startsWith("the node's slices no longer offer a chosen device");
  }

  /**
   * The naive planner trusts the index, never the record: it takes held devices and records
   * reservations again.
   */
  @Test
  void aPlannerThatDoesNotReadTheRecordIsCaught() {
    assertThat(
            wrong(
                (live, node, record, placed, unpinned, unadopted, offered) ->
                    AllocationWrite.plan(
                        live, node, Optional.empty(), placed, unpinned, unadopted, offered, NOW)))
        .anyMatch(r -> r.startsWith("someone holds a chosen device"))
        .anyMatch(r -> r.startsWith("resuming"));
  }

  @Test
  void theAllocationSaysWhereAndWhatInItsCondition() {
    var plan =
        (WritePlan.Commit)
            AllocationWrite.plan(
                List.of(C1),
                READY,
                Optional.empty(),
                placed(Map.of("c1", List.of("gpu-0"))),
                Optional.empty(),
                Set.of(),
                ALL_OFFERED,
                NOW);
    var claim = (ResourceClaim) plan.writes().get(1).object();
    var allocated = Allocator.allocatedCondition(claim).orElseThrow();
    assertThat(allocated.isTrue()).isTrue();
    assertThat(allocated.message()).isEqualTo("1 device(s) on node node-0: gpu-0");
    assertThat(plan.recordsNew()).isTrue();
  }

  /**
   * The node's hold starts with the allocation: every claim allocated to a node carries that node's
   * agent finalizer from the allocation's own transaction on, written as one write of its metadata
   * and status, so the agent puts none on in a write of its own before its prepare.
   */
  @Test
  void eachClaimIsHeldByItsNodeFromItsAllocationOn() {
    assertThat(withoutTheirNodesFinalizer(REAL)).isEmpty();
  }

  /** The allocator before the hold moved to it: a status write of the allocation alone. */
  @Test
  void anAllocationWrittenAsStatusAloneIsCaught() {
    assertThat(
            withoutTheirNodesFinalizer(
                (live, node, record, placed, unpinned, unadopted, offered) ->
                    switch (REAL.plan(live, node, record, placed, unpinned, unadopted, offered)) {
                      case WritePlan.Commit c ->
                          new WritePlan.Commit(
                              c.writes().stream()
                                  .map(
                                      w ->
                                          w.object() instanceof ResourceClaim rc
                                              ? new Write.UpdateStatus(
                                                  rc.withMetadata(
                                                      rc.metadata().withFinalizers(List.of())))
                                              : w)
                                  .toList(),
                              c.recordNodes(),
                              c.scheduledTasks());
                      case WritePlan other -> other;
                    }))
        .isNotEmpty();
  }

  /** The claim writes of every row's plan that do not put the node's finalizer on with it. */
  private static List<String> withoutTheirNodesFinalizer(Planner planner) {
    var out = new ArrayList<String>();
    planned(planner)
        .forEach(
            (r, plan) -> {
              if (!(plan instanceof WritePlan.Commit c)) {
                return;
              }
              for (var w : c.writes()) {
                if (w.object() instanceof ResourceClaim rc) {
                  var node = rc.status().allocation().orElseThrow().node();
                  boolean held =
                      w instanceof Write.UpdateWithStatus
                          && rc.metadata()
                              .finalizers()
                              .contains(
                                  new dev.quartermaster.api.claim.AgentFinalizer(node).name());
                  if (!held) {
                    out.add(r.name() + ": " + rc.metadata().name() + " as " + w);
                  }
                }
              }
            });
    return out;
  }

  /** One line per write, or what the plan is instead. */
  private static List<String> describe(WritePlan plan) {
    return switch (plan) {
      case WritePlan.Stale s -> List.of("stale");
      case WritePlan.Taken t -> List.of("taken " + t.device() + " by " + t.holder().claim());
      case WritePlan.AwaitAdoption a -> List.of("await adoption of " + a.node());
      case WritePlan.Commit c -> {
        var lines = new ArrayList<String>();
        for (var w : c.writes()) {
          lines.add(
              switch (w.object()) {
                case NodeAllocation r ->
                    (w instanceof Write.Create ? "create" : "update") + " record " + holders(r);
                case ResourceClaim rc -> {
                  var a = rc.status().allocation().orElseThrow();
                  yield "allocate "
                      + rc.metadata().name()
                      + " on "
                      + a.node()
                      + ": "
                      + String.join(",", a.devices().stream().map(AllocatedDevice::device).toList())
                      + " for "
                      + rc.status().reservedFor();
                }
                case Task t when w instanceof Write.UpdateWithStatus ->
                    "schedule " + t.metadata().name() + " on " + t.status().node().orElseThrow();
                case Task t ->
                    "pin " + t.metadata().name() + " to " + t.spec().node().orElseThrow();
                default -> "unexpected " + w;
              });
        }
        assertThat(c.recordsNew())
            .isEqualTo(c.writes().getFirst().object() instanceof NodeAllocation);
        yield lines;
      }
    };
  }

  private static String holders(NodeAllocation r) {
    var m = new TreeMap<String, String>();
    r.spec().devices().forEach((d, h) -> m.put(d, h.claim()));
    return m.toString();
  }

  private static Placement.Placed placed(Map<String, List<String>> devices) {
    var out = new TreeMap<String, List<AllocatedDevice>>();
    devices.forEach(
        (claim, names) ->
            out.put(claim, names.stream().map(d -> new AllocatedDevice("gpu", d)).toList()));
    return new Placement.Placed(NODE, out);
  }

  /** A record whose holders are claims named as given, each with uid {@code uid-<claim>}. */
  private static Optional<NodeAllocation> record(Map<String, String> holders) {
    var m = new TreeMap<String, DeviceHolder>();
    holders.forEach((d, claim) -> m.put(d, new DeviceHolder(claim, "uid-" + claim)));
    return Optional.of(
        new NodeAllocation(
            ObjectMeta.named(NODE).withRevision(5), NodeAllocationSpec.EMPTY.with(m), null));
  }

  private static ResourceClaim claim(String name, Optional<Task> owner) {
    var meta = ObjectMeta.named(name).withUid("uid-" + name);
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty());
    return new ResourceClaim(
        owner.map(t -> meta.withOwner(OwnerReference.of(t))).orElse(meta),
        spec,
        ResourceClaimStatus.EMPTY);
  }

  private static Task task(String name, List<String> claims, boolean deleting) {
    var meta = ObjectMeta.named(name).withUid("uid-" + name).withRevision(3);
    return new Task(
        deleting ? meta.withDeletedAt(NOW) : meta,
        new TaskSpec(
            Optional.empty(),
            List.of("run"),
            Map.of(),
            claims,
            List.of(),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  private static Node node(NodeSpec spec, boolean devicesReady) {
    return new Node(
        ObjectMeta.named(NODE),
        spec,
        new NodeStatus(
            List.of(
                new Condition(
                    NodeConditions.AGENT_READY,
                    Condition.Status.True,
                    "Heartbeat",
                    "",
                    Optional.empty()),
                new Condition(
                    NodeConditions.DEVICES_READY,
                    devicesReady ? Condition.Status.True : Condition.Status.False,
                    devicesReady ? "AllPresent" : "Missing",
                    devicesReady ? "" : "missing /dev/nvidia-uvm",
                    Optional.empty())),
            Optional.empty(),
            "b",
            "",
            List.of()));
  }
}
