package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.allocation.ReservedClaim;
import dev.quartermaster.api.allocation.ReservedMember;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Concurrent placements on one node: the allocator's workers decide from this index while earlier
 * decisions are still being committed. A second placement that fits only on a node being committed
 * to must wait for that commit, not pick the same best-fit devices and lose the node's record (how
 * it is woken when the commit ends: {@link WaitersTest}).
 */
class DeviceIndexTest {
  private static final Map<String, DeviceClass> CLASSES =
      Map.of(
          "gpu",
          new DeviceClass(
              ObjectMeta.named("gpu"),
              new DeviceClassSpec("gpu", List.of()),
              DeviceClassStatus.EMPTY));
  private static final String NODE = "node-0";

  private final InFlightCommits commits = new InFlightCommits();
  private final DeviceIndex index = new DeviceIndex(commits);
  private final Node node =
      new Node(
          ObjectMeta.named(NODE),
          NodeSpec.EMPTY,
          new NodeStatus(
              List.of(
                  new Condition(
                      "AgentReady", Condition.Status.True, "Heartbeat", "", Optional.empty()),
                  new Condition(
                      "DevicesReady", Condition.Status.True, "AllPresent", "", Optional.empty())),
              Optional.empty(),
              "b",
              "",
              List.of()));
  private final List<DeviceSlice> slices = List.of(slice(2));

  private static DeviceSlice slice(int gpus) {
    var devices = new ArrayList<Device>();
    for (int i = 0; i < gpus; i++) {
      devices.add(
          new Device("gpu-" + i, "gpu", Map.of("model", "H100"), Device.Health.Healthy, ""));
    }
    return new DeviceSlice(
        ObjectMeta.named(NODE), new DeviceSliceSpec(NODE, devices), DeviceSliceStatus.EMPTY);
  }

  private static List<ClaimNeed> oneGpu(String claim) {
    return List.of(new ClaimNeed(claim, List.of(new DeviceRequest("gpu", "gpu", 1, List.of()))));
  }

  private static String device(Placement placement, String claim) {
    return ((Placement.Placed) placement)
        .devices().get(claim).stream().map(AllocatedDevice::device).findFirst().orElseThrow();
  }

  @Test
  void aFitOnlyOnANodeBeingCommittedToIsBusyUntilThatCommitEnds() {
    index.refresh(NODE, Optional.of(node), Optional.empty(), slices);
    var first = index.place(oneGpu("a"), Optional.empty(), CLASSES);
    assertThat(first).isInstanceOf(Placement.Placed.class);
    assertThat(commits.isCommitting(NODE)).isTrue();

    // The node has a second free GPU, but until the first commit lands the index would hand out the
    // first one again: the two commits would race for the node's record and one would lose.
    assertThat(index.place(oneGpu("b"), Optional.empty(), CLASSES))
        .isEqualTo(new Placement.Busy(NODE));
    assertThat(index.place(oneGpu("c"), Optional.of(NODE), CLASSES))
        .isEqualTo(new Placement.Busy(NODE));

    // The first commit lands (indexed at once), then ends: the node is placed on again, around it.
    var taken = device(first, "a");
    index.wrote(
        new NodeAllocation(
            ObjectMeta.named(NODE),
            NodeAllocationSpec.EMPTY.with(Map.of(taken, new DeviceHolder("a", "uid-a"))),
            null),
        Optional.of(node),
        cached(node, slices));
    commits.end(NODE);

    var second = index.place(oneGpu("b"), Optional.empty(), CLASSES);
    assertThat(device(second, "b")).isNotEqualTo(taken);
  }

  /** Our own write stands in the index until the cache shows it, and no longer. */
  @Test
  void ourOwnWriteStandsUntilTheCacheCatchesUp() {
    var ready = withRevision(node, 3);
    var slices2 = List.of(sliceAt(slice(2), 4));
    index.refresh(NODE, Optional.of(ready), Optional.empty(), slices2);
    var ours =
        new NodeAllocation(
            ObjectMeta.named(NODE).withRevision(10),
            NodeAllocationSpec.EMPTY.with(
                Map.of(
                    "gpu-0",
                    new DeviceHolder("x", "uid-x"),
                    "gpu-1",
                    new DeviceHolder("y", "uid-y"))),
            null);
    index.wrote(ours, Optional.of(ready), cached(ready, slices2));

    // An informer event of an older revision (no record yet) does not undo our write.
    index.refresh(NODE, Optional.of(ready), Optional.empty(), slices2);
    assertThat(index.place(oneGpu("a"), Optional.empty(), CLASSES))
        .isInstanceOf(Placement.Waiting.class);

    // The cache moves past it (a claim released gpu-1 at revision 11): the cache is what counts
    // now.
    var later =
        new NodeAllocation(
            ObjectMeta.named(NODE).withRevision(11),
            NodeAllocationSpec.EMPTY.with(Map.of("gpu-0", new DeviceHolder("x", "uid-x"))),
            null);
    index.refresh(NODE, Optional.of(ready), Optional.of(later), slices2);
    assertThat(device(index.place(oneGpu("a"), Optional.empty(), CLASSES), "a")).isEqualTo("gpu-1");
  }

  @Test
  void aFullNodeIsWaitingForDevicesNotBusy() {
    index.refresh(
        NODE,
        Optional.of(node),
        Optional.of(
            new NodeAllocation(
                ObjectMeta.named(NODE),
                NodeAllocationSpec.EMPTY.with(
                    Map.of(
                        "gpu-0",
                        new DeviceHolder("x", "uid-x"),
                        "gpu-1",
                        new DeviceHolder("y", "uid-y"))),
                null)),
        slices);
    assertThat(index.place(oneGpu("a"), Optional.empty(), CLASSES))
        .isInstanceOf(Placement.Waiting.class);
  }

  /**
   * The index skips rebuilding a node whose node, record and slice revisions it has already seen
   * (our own write, then the informer's event of it): any one of them moving must rebuild it.
   */
  @Test
  void aNodeIsRebuiltWhenItsNodeRecordOrSlicesMoveAndOnlyThen() {
    var ready = withRevision(node, 3);
    var slices2 = List.of(sliceAt(slice(2), 4));
    index.refresh(NODE, Optional.of(ready), Optional.empty(), slices2);
    assertThat(index.place(oneGpu("a"), Optional.empty(), CLASSES))
        .isInstanceOf(Placement.Placed.class);
    commits.end(NODE);

    // The record moves (revision 5): both GPUs held.
    var full =
        new NodeAllocation(
            ObjectMeta.named(NODE).withRevision(5),
            NodeAllocationSpec.EMPTY.with(
                Map.of(
                    "gpu-0",
                    new DeviceHolder("x", "uid-x"),
                    "gpu-1",
                    new DeviceHolder("y", "uid-y"))),
            null);
    index.refresh(NODE, Optional.of(ready), Optional.of(full), slices2);
    assertThat(index.place(oneGpu("b"), Optional.empty(), CLASSES))
        .isInstanceOf(Placement.Waiting.class);

    // The slices move (revision 6): two more GPUs published.
    var slices4 = List.of(sliceAt(slice(4), 6));
    index.refresh(NODE, Optional.of(ready), Optional.of(full), slices4);
    assertThat(index.place(oneGpu("c"), Optional.empty(), CLASSES))
        .isInstanceOf(Placement.Placed.class);
    commits.end(NODE);

    // The node moves (revision 7): cordoned.
    var cordoned =
        withRevision(new Node(node.metadata(), new NodeSpec(true, false), node.status()), 7);
    index.refresh(NODE, Optional.of(cordoned), Optional.of(full), slices4);
    assertThat(index.isSchedulable(NODE)).isFalse();

    // The same revisions again are the same view (a stored revision names one content): not
    // rebuilt.
    index.refresh(NODE, Optional.of(withRevision(node, 7)), Optional.of(full), slices4);
    assertThat(index.isSchedulable(NODE)).isFalse();
  }

  private static Node withRevision(Node n, long revision) {
    return new Node(n.metadata().withRevision(revision), n.spec(), n.status());
  }

  private static DeviceSlice sliceAt(DeviceSlice s, long revision) {
    return new DeviceSlice(s.metadata().withRevision(revision), s.spec(), s.status());
  }

  /**
   * A device a gang's reservation holds is no one else's to choose, and is given back when the
   * reservation goes; it is not a record entry of its claim, so no member resumes it on its own.
   */
  @Test
  void aDeviceAGangReservationHoldsIsNotFreeUntilTheReservationGoes() {
    index.refresh(NODE, Optional.of(node), Optional.empty(), slices);
    var reservation =
        new GangReservation(
            "job",
            "uid-job",
            "workers",
            1,
            ReservationPhase.Held,
            List.of(
                new ReservedMember(
                    "job-workers-0",
                    "uid-task",
                    NODE,
                    List.of(
                        new ReservedClaim(
                            "job-workers-0-gpu",
                            "uid-claim",
                            List.of(new AllocatedDevice("gpu", "gpu-0")))))));
    var changed = index.gangReserved(GangLedgerSpec.EMPTY.with(reservation));
    assertThat(changed).containsExactly(NODE);
    index.refresh(NODE, Optional.of(node), Optional.empty(), slices);

    var placed = index.place(oneGpu("a"), Optional.empty(), CLASSES);
    assertThat(device(placed, "a")).as("the reserved gpu-0 is not handed out").isEqualTo("gpu-1");
    commits.end(NODE);
    assertThat(device(index.place(oneGpu("b"), Optional.empty(), CLASSES), "b"))
        .as("still not, whoever asks")
        .isEqualTo("gpu-1");
    commits.end(NODE);
    assertThat(index.reservationsOf("uid-claim")).as("no record entry of its claim").isEmpty();

    assertThat(index.gangReserved(GangLedgerSpec.EMPTY)).containsExactly(NODE);
    index.refresh(NODE, Optional.of(node), Optional.empty(), slices);
    assertThat(device(index.place(oneGpu("c"), Optional.empty(), CLASSES), "c"))
        .as("given back: best fit takes the first free one")
        .isEqualTo("gpu-0");
  }

  /** Caches that show {@code node} and {@code slices}, and no record. */
  private static NodeCaches cached(Node node, List<DeviceSlice> slices) {
    return new NodeCaches() {
      @Override
      public Optional<Node> node(String name) {
        return Optional.of(node);
      }

      @Override
      public Optional<NodeAllocation> record(String name) {
        return Optional.empty();
      }

      @Override
      public List<DeviceSlice> slices(String name) {
        return slices;
      }
    };
  }
}
