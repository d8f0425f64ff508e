package dev.quartermaster.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.allocation.ReservedClaim;
import dev.quartermaster.api.allocation.ReservedMember;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gang reservation's commit point on a real etcd: a gang of 1,000 members with 8 GPUs each is
 * one put of the gang ledger, within etcd's limits, and from that write on etcd's store refuses a
 * record entry for one of its devices for another claim while letting the reserved claim's own
 * through. Without etcd the test skips saying how to get it; under {@code CI=true} it fails.
 */
class EtcdGangLedgerTest {
  @TempDir Path dir;

  @Test
  void aThousandMembersOfEightGpusAreReservedInOnePutAndHoldTheirDevices() throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    try (var etcd = EtcdProcesses.start(binary.get(), dir.resolve("etcd"), 1);
        var store = new EtcdStore(etcd.endpoints(), "/qm")) {
      var api = new ObjectRegistry(store, new DeterministicEnv(1));
      var members = new ArrayList<ReservedMember>();
      for (int i = 0; i < 1000; i++) {
        var devices =
            IntStream.range(0, 8).mapToObj(d -> new AllocatedDevice("gpu", "gpu-" + d)).toList();
        members.add(
            new ReservedMember(
                "train-workers-" + i,
                "task-uid-" + i,
                "node-" + i,
                List.of(
                    new ReservedClaim("train-workers-" + i + "-gpu", "claim-uid-" + i, devices))));
      }
      var reservation =
          new GangReservation(
              "train", "workload-uid", "workers", 1, ReservationPhase.Proposed, members);
      long before = store.currentRevision();

      var ledger = api.create(GangLedger.of(GangLedgerSpec.EMPTY.with(reservation)));
      assertThat(store.currentRevision()).as("one transaction").isEqualTo(before + 1);
      api.update(ledger.withSpec(ledger.spec().with(reservation.withPhase(ReservationPhase.Held))));

      assertThatThrownBy(
              () ->
                  api.create(
                      new NodeAllocation(
                          ObjectMeta.named("node-7"),
                          new NodeAllocationSpec(
                              Map.of("gpu-3", new DeviceHolder("other", "other-uid"))),
                          null)))
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
          .hasMessageContaining("device gpu-3 is reserved for gang train/workers");
      var own =
          api.create(
              new NodeAllocation(
                  ObjectMeta.named("node-7"),
                  new NodeAllocationSpec(
                      Map.of("gpu-3", new DeviceHolder("train-workers-7-gpu", "claim-uid-7"))),
                  null));
      assertThat(own.spec().devices()).containsOnlyKeys("gpu-3");
      assertThat(api.get(Kinds.GANG_LEDGER, GangLedger.NAME).orElseThrow().spec().reservations())
          .containsOnlyKeys("train/workers");
    }
  }
}
