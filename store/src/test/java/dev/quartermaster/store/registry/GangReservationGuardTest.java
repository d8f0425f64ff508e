package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.allocation.ReservationPhase;
import dev.quartermaster.api.allocation.ReservedClaim;
import dev.quartermaster.api.allocation.ReservedMember;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A gang reservation holds its devices as a record entry does (issue 32, item 2): the store refuses
 * a record entry or a claim allocation that would take one of them for another claim, a second
 * reservation of one of them, and a reservation of a device a record gives to another claim; it
 * lets the reserved claim's own entry and allocation through (the same holding, not two).
 */
class GangReservationGuardTest {
  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(7);
  ObjectRegistry api;

  /** Claims by name, as created in the store (their uids are the store's). */
  final Map<String, ResourceClaim> claims = new java.util.HashMap<>();

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, env);
    for (var name : List.of("a-gpu", "b-gpu", "x-gpu")) {
      claims.put(name, api.create(AllocationGuardTest.claim(name)));
    }
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** What a row expects of its write. */
  sealed interface Outcome {
    record Accepted() implements Outcome {}

    record Refused(Reason reason, String saying) implements Outcome {}
  }

  /**
   * One row: what the store holds before ({@code given}, written through {@code api} with or
   * without the guards), the write judged, and what the guard must answer.
   */
  record Row(
      String what,
      Consumer<GangReservationGuardTest> given,
      Consumer<GangReservationGuardTest> write,
      Outcome expected) {
    @Override
    public String toString() {
      return what;
    }
  }

  static Stream<Row> rows() {
    var accepted = new Outcome.Accepted();
    return Stream.of(
        new Row(
            "a reservation naming a device a record gives another claim is refused",
            t -> t.record("node-1", "gpu-0", "x-gpu"),
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            new Outcome.Refused(
                Reason.Conflict, "device gpu-0 on node node-1 is held by claim x-gpu")),
        new Row(
            "a record entry for a device a reservation holds for another claim is refused",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t -> t.record("node-1", "gpu-0", "x-gpu"),
            new Outcome.Refused(
                Reason.Conflict,
                "nodeallocation/node-1: spec.devices: device gpu-0 is reserved for gang job/*, claim a-gpu")),
        new Row(
            "a record entry for a free device next to a reservation is accepted",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t -> t.record("node-1", "gpu-1", "x-gpu"),
            accepted),
        new Row(
            "a claim allocation naming a reserved device for another claim is refused",
            // What a record write racing the proposal can leave (the Held check then refuses too).
            t -> {
              t.propose("job", "a-gpu", "node-1", "gpu-0");
              t.naiveRecord("node-1", "gpu-0", "x-gpu");
            },
            t -> t.allocate("x-gpu", "node-1", "gpu-0"),
            new Outcome.Refused(
                Reason.Conflict,
                "resourceclaim/x-gpu: status.allocation: device gpu-0 on node node-1 is reserved for gang job/*")),
        new Row(
            "the reserved claim's own record entry and allocation follow (one holding, not two)",
            t -> {
              t.propose("job", "a-gpu", "node-1", "gpu-0");
              t.hold("job");
            },
            t -> {
              t.record("node-1", "gpu-0", "a-gpu");
              t.allocate("a-gpu", "node-1", "gpu-0");
            },
            accepted),
        new Row(
            "a second reservation of a reserved device is refused",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t -> t.propose("other", "b-gpu", "node-1", "gpu-0"),
            new Outcome.Refused(
                Reason.Conflict,
                "reservation other/*: device gpu-0 on node node-1 is reserved for gang job/*, claim a-gpu")),
        new Row(
            "a second reservation of other devices is accepted",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t -> t.propose("other", "b-gpu", "node-1", "gpu-1"),
            accepted),
        new Row(
            "a reservation written Held at once is refused",
            t -> {},
            t ->
                t.writeLedger(
                    t.ledger()
                        .with(
                            reservation("job", t.member("a-gpu", "node-1", "gpu-0"))
                                .withPhase(ReservationPhase.Held))),
            new Outcome.Refused(Reason.Invalid, "a reservation is written Proposed")),
        new Row(
            "Held is refused while a record gives one of its devices to another claim",
            t -> {
              t.propose("job", "a-gpu", "node-1", "gpu-0");
              t.naiveRecord("node-1", "gpu-0", "x-gpu");
            },
            t -> t.hold("job"),
            new Outcome.Refused(
                Reason.Conflict, "device gpu-0 on node node-1 is held by claim x-gpu")),
        new Row(
            "a reservation's members do not change",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t ->
                t.writeLedger(
                    t.ledger().with(reservation("job", t.member("a-gpu", "node-1", "gpu-1")))),
            new Outcome.Refused(Reason.Invalid, "does not change")),
        new Row(
            "a held reservation does not go back to Proposed",
            t -> {
              t.propose("job", "a-gpu", "node-1", "gpu-0");
              t.hold("job");
            },
            t ->
                t.writeLedger(
                    t.ledger()
                        .with(
                            t.ledger()
                                .reservation("job/*")
                                .orElseThrow()
                                .withPhase(ReservationPhase.Proposed))),
            new Outcome.Refused(Reason.Invalid, "stays held")),
        new Row(
            "removing a reservation gives its devices back",
            t -> t.propose("job", "a-gpu", "node-1", "gpu-0"),
            t -> {
              t.writeLedger(t.ledger().without("job/*"));
              t.record("node-1", "gpu-0", "x-gpu");
            },
            accepted));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void theGuardJudgesReservationsAndRecordsAsOneHolding(Row row) {
    row.given().accept(this);
    long before = store.currentRevision();
    switch (row.expected()) {
      case Outcome.Accepted a -> row.write().accept(this);
      case Outcome.Refused r -> {
        assertThatThrownBy(() -> row.write().accept(this))
            .isInstanceOfSatisfying(
                ApiException.class, e -> assertThat(e.is(r.reason())).as(e.getMessage()).isTrue())
            .hasMessageContaining(r.saying());
        assertThat(store.currentRevision()).as("nothing of it applied").isEqualTo(before);
      }
    }
  }

  /**
   * A record write whose check ran before a reservation of the same device committed fails its
   * compare on the ledger, is judged again, and is refused.
   */
  @Test
  void aRecordWriteRacingAProposalIsJudgedAgainAndRefused() {
    var racing = new InterleavingStore(store);
    var guarded = new ObjectRegistry(racing, env);
    racing.beforeNextTxn(() -> propose("job", "a-gpu", "node-1", "gpu-0"));

    assertThatThrownBy(
            () ->
                guarded.create(
                    new NodeAllocation(
                        ObjectMeta.named("node-1"),
                        new NodeAllocationSpec(Map.of("gpu-0", holder("x-gpu"))),
                        null)))
        .hasMessageContaining("reserved for gang job/*");
    assertThat(api.get(Kinds.NODE_ALLOCATION, "node-1")).isEmpty();
  }

  /**
   * The other way round the proposal compares no record (a gang spans more nodes than a transaction
   * has compares): a record write landing between its check and its transaction is not seen, and
   * the proposal stands. That is why it is only Proposed: the Held check, which no record write can
   * race any more, refuses it.
   */
  @Test
  void aProposalRacingARecordWriteStandsButIsNotHeld() {
    var racing = new InterleavingStore(store);
    var guarded = new ObjectRegistry(racing, env);
    racing.beforeNextTxn(() -> record("node-1", "gpu-0", "x-gpu"));

    guarded.create(
        GangLedger.of(
            GangLedgerSpec.EMPTY.with(reservation("job", member("a-gpu", "node-1", "gpu-0")))));

    assertThatThrownBy(() -> hold("job"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(Reason.Conflict)).isTrue())
        .hasMessageContaining("device gpu-0 on node node-1 is held by claim x-gpu");
    assertThat(ledger().reservation("job/*").orElseThrow().phase())
        .isEqualTo(ReservationPhase.Proposed);
  }

  /**
   * The commit point is one small write: a gang of 1,000 members with 8 GPUs each is one ledger
   * entry well under etcd's 1.5 MiB per request (and the API's 1 MiB per body).
   */
  @Test
  void aThousandMembersOfEightGpusFitOneRequest() {
    var members = new ArrayList<ReservedMember>();
    for (int i = 0; i < 1000; i++) {
      var devices =
          IntStream.range(0, 8).mapToObj(d -> new AllocatedDevice("gpu", "gpu-" + d)).toList();
      members.add(
          new ReservedMember(
              "train-workers-" + i,
              UUID.randomUUID().toString(),
              "node-" + i,
              List.of(
                  new ReservedClaim(
                      "train-workers-" + i + "-gpu", UUID.randomUUID().toString(), devices))));
    }
    var ledger =
        GangLedger.of(
            GangLedgerSpec.EMPTY.with(
                new GangReservation(
                    "train",
                    UUID.randomUUID().toString(),
                    "workers",
                    1,
                    ReservationPhase.Proposed,
                    members)));
    int bytes = ObjectCodec.toJson(ledger).length;
    System.out.println("gang reservation of 1,000 members x 8 GPUs: " + bytes + " bytes");
    assertThat(bytes).isLessThan(1_048_576);

    var written = api.create(ledger);
    assertThat(written.spec().reservation("train/workers").orElseThrow().devices()).hasSize(8000);
  }

  // --- what the rows write ---

  DeviceHolder holder(String claim) {
    return new DeviceHolder(claim, claims.get(claim).metadata().uid());
  }

  ReservedMember member(String claim, String node, String device) {
    return new ReservedMember(
        claim.replace("-gpu", ""),
        "task-uid-" + claim,
        node,
        List.of(
            new ReservedClaim(
                claim, holder(claim).uid(), List.of(new AllocatedDevice("gpu", device)))));
  }

  static GangReservation reservation(String workload, ReservedMember... members) {
    return new GangReservation(
        workload, "uid-" + workload, "*", 1, ReservationPhase.Proposed, List.of(members));
  }

  GangLedgerSpec ledger() {
    return api.get(Kinds.GANG_LEDGER, GangLedger.NAME)
        .map(GangLedger::spec)
        .orElse(GangLedgerSpec.EMPTY);
  }

  void writeLedger(GangLedgerSpec spec) {
    var current = api.get(Kinds.GANG_LEDGER, GangLedger.NAME);
    if (current.isEmpty()) {
      api.create(GangLedger.of(spec));
    } else {
      api.update(current.get().withSpec(spec));
    }
  }

  void propose(String workload, String claim, String node, String device) {
    writeLedger(ledger().with(reservation(workload, member(claim, node, device))));
  }

  void hold(String workload) {
    var r = ledger().reservation(workload + "/*").orElseThrow();
    writeLedger(ledger().with(r.withPhase(ReservationPhase.Held)));
  }

  void record(String node, String device, String claim) {
    AllocationGuardTest.record(api, node, Map.of(device, holder(claim)));
  }

  /** A record entry written past the guards: what a write racing a proposal can leave. */
  void naiveRecord(String node, String device, String claim) {
    AllocationGuardTest.record(
        ObjectRegistry.withoutCrossObjectRules(store, env), node, Map.of(device, holder(claim)));
  }

  void allocate(String claim, String node, String device) {
    var c = api.get(Kinds.RESOURCE_CLAIM, claim).orElseThrow();
    api.updateStatus(
        c.withStatus(
            c.status()
                .withAllocation(
                    new Allocation(node, List.of(new AllocatedDevice("gpu", device))))));
  }
}
