package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.AdmissionController;
import dev.quartermaster.control.admission.LedgerRoom;
import dev.quartermaster.control.admission.Requeueing;
import dev.quartermaster.control.admission.policy.AdmissionPolicy;
import dev.quartermaster.control.cluster.Informers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A cohort's quota ledger is one object written whole, and a store refuses a write larger than it
 * takes (the API's 1 MiB body, etcd's 1.5 MiB). Here the room is 800 bytes, so that six small
 * workloads that all fit their quota overflow it: the ledger never grows past the room, the ones
 * held back are told why, and one is admitted as soon as an admitted one goes. The naive controller
 * (a room it never reaches) writes a ledger larger than the store would take.
 */
class LedgerFullTest {
  private static final long ROOM = 800;

  private record Run(long largest, int admitted, List<String> told, SimCluster cluster) {}

  @Test
  void aFullLedgerAdmitsNobodyNewSaysWhyAndAdmitsAgainAsItShrinks() {
    var run = run(new LedgerRoom(ROOM));
    assertThat(run.largest()).as("the largest ledger written").isLessThanOrEqualTo(ROOM);
    assertThat(run.admitted()).as("admitted").isBetween(1, 5);
    assertThat(run.told())
        .as("the workloads held back are told why")
        .hasSize(6 - run.admitted())
        .allSatisfy(m -> assertThat(m).contains("quota ledger would grow to").contains("800"));
    // An admitted workload goes: its entry is released and a held one takes the room.
    var c = run.cluster();
    var ledger = c.api().get(Kinds.QUOTA_LEDGER, "c").orElseThrow();
    var gone = ledger.spec().admitted().keySet().iterator().next();
    c.api().delete(Kinds.WORKLOAD, gone);
    c.runUntil(
        () -> {
          var now = c.api().get(Kinds.QUOTA_LEDGER, "c").orElseThrow().spec().admitted();
          return !now.containsKey(gone) && now.size() == run.admitted();
        },
        Duration.ofSeconds(60));
    var after = c.api().get(Kinds.QUOTA_LEDGER, "c").orElseThrow();
    assertThat(after.spec().admitted()).doesNotContainKey(gone).hasSize(run.admitted());
    assertThat(size(after.spec())).isLessThanOrEqualTo(ROOM);
  }

  @Test
  void theNaiveControllerWritesALedgerLargerThanTheRoom() {
    var run = run(new LedgerRoom(Long.MAX_VALUE));
    assertThat(run.admitted()).isEqualTo(6);
    assertThat(run.largest()).isGreaterThan(ROOM);
    assertThat(run.told()).isEmpty();
  }

  private static Run run(LedgerRoom room) {
    var c = new SimCluster(1, WatchFaults.NONE);
    var informers = new Informers(c.env(), c.api());
    informers.start();
    var told = new CopyOnWriteArrayList<String>();
    EventRecorder events =
        (involved, type, reason, message) -> {
          if (reason.equals("LedgerFull")) {
            told.add(involved.name() + ": " + message);
          }
        };
    var admission =
        new AdmissionController(
            c.env(), c.api(), informers, events, Requeueing.DEFAULT, AdmissionPolicy.DEFAULT, room);
    admission.startLeading();
    admission.loop().start();
    c.api().create(Worlds.gpuQueue("team", "c", 100));
    for (int i = 0; i < 6; i++) {
      var w = Worlds.gpuWorkload("job-" + i, 1, "gpu", 1);
      c.api()
          .create(
              new Workload(w.metadata(), w.spec().inQueue("team", Optional.empty()), w.status()));
    }
    var largest = new long[] {0};
    c.runUntil(
        () -> {
          c.api()
              .get(Kinds.QUOTA_LEDGER, "c")
              .ifPresent(l -> largest[0] = Math.max(largest[0], size(l.spec())));
          return false;
        },
        Duration.ofSeconds(30));
    int admitted =
        c.api().get(Kinds.QUOTA_LEDGER, "c").map(l -> l.spec().admitted().size()).orElse(0);
    return new Run(largest[0], admitted, List.copyOf(told), c);
  }

  private static long size(Object spec) {
    try {
      return ObjectCodec.json().writeValueAsBytes(spec).length;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
