package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, hole 7: ordinary writes must not wipe the allocation record and so let the allocator
 * hand a GPU out twice. The three paths found black-box — a node applied with other labels, a node
 * deleted while its tasks run and re-registered by its agent, a claim status written naming a held
 * device — plus a record PUT that drops entries, each followed by more claims than free GPUs. I1 is
 * checked on the true store state at every commit.
 */
class OrdinaryWritesTest {

  record Outcome(
      List<String> violations,
      List<String> refused,
      int allocated,
      Map<String, ?> recordBefore,
      Map<String, ?> recordAfterNodeWrites) {}

  @Test
  void ordinaryWritesNeitherWipeTheRecordNorDoubleAllocate() {
    for (long seed : SimCluster.seeds(5)) {
      var o = scenario(new SimCluster(seed, WatchFaults.staleCache()));

      assertThat(o.violations()).as("seed %d", seed).isEmpty();
      assertThat(o.recordAfterNodeWrites())
          .as("seed %d: record after the node's apply, delete and re-registration", seed)
          .isEqualTo(o.recordBefore())
          .isNotEmpty();
      assertThat(o.refused()).as("seed %d", seed).hasSize(3);
      assertThat(o.refused().get(0))
          .contains(
              "node/node-0 cannot be deleted while live claims hold its devices: gpu-0 by claim c");
      assertThat(o.refused().get(1))
          .contains(
              "resourceclaim/intruder: status.allocation: device gpu-0 on node node-0 is held by claim c");
      assertThat(o.refused().get(2))
          .contains("nodeallocation/node-0: spec.devices: device gpu-0 is held by claim c");
      assertThat(o.allocated()).as("seed %d: every GPU in use once, none twice", seed).isEqualTo(8);
    }
  }

  /** The naive variant: the same writes on a store without the allocation guard. */
  @Test
  void withoutTheGuardTheSameWritesDoubleAllocateAndTheCheckerSaysSo() {
    int caught = 0;
    for (long seed : SimCluster.seeds(5)) {
      var o = scenario(SimCluster.withoutCrossObjectRules(seed, WatchFaults.staleCache()));
      assertThat(o.refused()).as("seed %d: nothing refused", seed).isEmpty();
      if (!o.violations().isEmpty()) {
        caught++;
      }
    }
    System.out.println(
        "ordinary writes: without the guard, double allocation in "
            + caught
            + " of "
            + SimCluster.seeds(5).length
            + " seeds");
    assertThat(caught).isEqualTo(SimCluster.seeds(5).length);
  }

  /**
   * A store written before records existed (the record was Node labels, which are not migrated):
   * claims allocated, no record. The allocator records those devices for their claims before it
   * hands out anything on that node, so new claims get only the GPUs that are really free.
   */
  @Test
  void claimsAllocatedWithoutARecordAreAdoptedNotDoubleAllocated() {
    for (long seed : SimCluster.seeds(5)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      var checker = new ExclusiveChecker();
      c.store().onCommit(checker);
      c.deviceClass("gpu", "gpu");
      c.addNode("node-0", 4);
      c.addNode("node-1", 4);
      var before = ObjectRegistry.withoutCrossObjectRules(c.store(), c.env());
      for (int i = 0; i < 3; i++) {
        var old = before.create(AllocatorRaceTest.claim("old-" + i, 1));
        before.updateStatus(
            old.withStatus(
                old.status()
                    .withAllocation(
                        new Allocation(
                            "node-0", List.of(new AllocatedDevice("gpu", "gpu-" + i))))));
      }
      var informers = new Informers(c.env(), c.api());
      var loop = new Allocator(c.env(), c.api(), informers).loop();
      informers.start();
      loop.start();
      for (int i = 0; i < 7; i++) {
        c.api().create(AllocatorRaceTest.claim("new-" + i, 1));
      }
      c.env().advance(Duration.ofMinutes(1));

      assertThat(checker.violations()).as("seed %d", seed).isEmpty();
      assertThat(checker.allocated())
          .as("seed %d: all 8 GPUs in use, once each", seed)
          .isEqualTo(8);
      assertThat(record(c, "node-0")).as("seed %d", seed).containsKeys("gpu-0", "gpu-1", "gpu-2");
    }
  }

  private Outcome scenario(SimCluster c) {
    var checker = new ExclusiveChecker();
    c.store().onCommit(checker);
    c.deviceClass("gpu", "gpu");
    c.addNode("node-0", 4);
    c.addNode("node-1", 4);
    var informers = new Informers(c.env(), c.api());
    var loop = new Allocator(c.env(), c.api(), informers).loop();
    informers.start();
    loop.start();
    // The agents heartbeat all along: the allocator's record writes must not conflict with them.
    c.heartbeatEvery("node-0", Duration.ofSeconds(1), () -> true);
    c.heartbeatEvery("node-1", Duration.ofSeconds(1), () -> true);
    for (int i = 0; i < 6; i++) {
      c.api().create(AllocatorRaceTest.claim("c" + i, 1));
    }
    c.env().advance(Duration.ofSeconds(10)); // best fit: node-0 full, two on node-1
    var refused = new ArrayList<String>();
    var before = record(c, "node-0");

    // 1. An operator applies node-0's manifest, with other labels.
    c.update(
        "node-0",
        n -> n.withMetadata(n.metadata().withLabels(Map.of("quartermaster.dev/zone", "rack-b"))));
    // 2. node-0 is deleted while its tasks run; its agent registers it again.
    refuse(
        refused,
        () -> {
          c.api().delete(Kinds.NODE, "node-0");
          c.registerNode("node-0");
        });
    var afterNodeWrites = record(c, "node-0");
    // 3. Someone writes a claim's status naming node-0's gpu-0, which another claim holds.
    var intruder = c.api().create(AllocatorRaceTest.claim("intruder", 1));
    refuse(
        refused,
        () ->
            c.api()
                .updateStatus(
                    intruder.withStatus(
                        intruder
                            .status()
                            .withAllocation(
                                new Allocation(
                                    "node-0", List.of(new AllocatedDevice("gpu", "gpu-0")))))));
    // 4. Someone PUTs node-0's record without its entries.
    refuse(
        refused,
        () -> {
          var r = c.api().get(Kinds.NODE_ALLOCATION, "node-0").orElseThrow();
          c.api().update(r.withSpec(NodeAllocationSpec.EMPTY));
        });

    // More claims than free GPUs: the allocator must give out only what is really free.
    for (int i = 6; i < 12; i++) {
      c.api().create(AllocatorRaceTest.claim("c" + i, 1));
    }
    c.env().advance(Duration.ofMinutes(1));
    return new Outcome(checker.violations(), refused, checker.allocated(), before, afterNodeWrites);
  }

  private static Map<String, ?> record(SimCluster c, String node) {
    return c.api().get(Kinds.NODE_ALLOCATION, node).map(r -> r.spec().devices()).orElse(Map.of());
  }

  private static void refuse(List<String> refused, Runnable write) {
    try {
      write.run();
    } catch (ApiException e) {
      assertThat(e.is(Reason.Conflict)).as(e.getMessage()).isTrue();
      refused.add(e.getMessage());
    }
  }
}
