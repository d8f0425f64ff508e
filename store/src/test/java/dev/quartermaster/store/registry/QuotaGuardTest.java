package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.Nomination;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.PriorityClassSpec;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q1 holds in the store whoever writes: an admitter that decided on a stale quota, or a writer that
 * does not check at all, is refused with a 409 naming the breach, and nothing changes; a quota
 * change that would leave what is admitted over quota is refused the same way. Shown beside the
 * same writes on a store without the rule, which over-commits.
 */
class QuotaGuardTest {
  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(5));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static QueueSpec gpus(int n) {
    return new QueueSpec(
        Optional.of("team"), Map.of("gpu", n), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);
  }

  private static Workload workload(String name, String queue, int replicas) {
    return workload(name, queue, replicas, Optional.empty());
  }

  private static Workload workload(
      String name, String queue, int replicas, Optional<String> priorityClass) {
    return workload(name, queue, replicas, priorityClass, "gpu");
  }

  private static Workload workload(
      String name, String queue, int replicas, Optional<String> priorityClass, String deviceClass) {
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", deviceClass, 1, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            replicas,
            new TaskTemplate(
                List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.OnFailure);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()).inQueue(queue, priorityClass),
        null);
  }

  private Admitted admit(ObjectRegistry on, String name, String queue, int replicas) {
    var w = on.create(workload(name, queue, replicas));
    return new Admitted(
        w.metadata().uid(), queue, Map.of("w", replicas), Demand.of(w.spec()), 0, Instant.EPOCH);
  }

  /** As {@link #admit}, the workload of priority class {@code high} (100), created if need be. */
  private Admitted admitHigh(ObjectRegistry on, String name, String queue, int replicas) {
    if (on.get(Kinds.PRIORITY_CLASS, "high").isEmpty()) {
      on.create(new PriorityClass(ObjectMeta.named("high"), new PriorityClassSpec(100, ""), null));
    }
    var w = on.create(workload(name, queue, replicas, Optional.of("high")));
    return new Admitted(
        w.metadata().uid(), queue, Map.of("w", replicas), Demand.of(w.spec()), 100, Instant.EPOCH);
  }

  /** The ledger of cohort team with {@code add} admitted on top of what it holds. */
  private QuotaLedger write(ObjectRegistry on, Map<String, Admitted> add) {
    var current = on.get(Kinds.QUOTA_LEDGER, "team");
    var admitted = new HashMap<>(current.map(l -> l.spec().admitted()).orElse(Map.of()));
    admitted.putAll(add);
    var spec = new QuotaLedgerSpec(List.of("a", "b"), admitted);
    return current.isPresent()
        ? on.update(current.get().withSpec(spec))
        : on.create(new QuotaLedger(ObjectMeta.named("team"), spec, null));
  }

  private void queues(ObjectRegistry on) {
    on.create(new Queue(ObjectMeta.named("a"), gpus(8), null));
    on.create(new Queue(ObjectMeta.named("b"), gpus(8), null));
  }

  @Test
  void aWriterThatDoesNotCheckCannotAdmitOverQuota() {
    queues(api);
    write(api, Map.of("x", admit(api, "x", "a", 12))); // borrows 4 of b's unused 8
    var y = admit(api, "y", "b", 8); // b's own nominal, while a borrows 4 of it
    long before = store.currentRevision();

    var refused = catchThrowableOfType(ApiException.class, () -> write(api, Map.of("y", y)));

    assertThat(refused.error().code()).isEqualTo(409);
    assertThat(refused.getMessage())
        .isEqualTo(
            "quotaledger/team: spec.admitted: over quota: gpu: the cohort's queues borrow 4, and"
                + " lend only 0; a cohort's queues use at most their nominal quota plus what the"
                + " cohort lends (what was admitted before a quota was lowered only goes down)");
    assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted())
        .containsOnlyKeys("x");
  }

  @Test
  void withoutTheRuleTheSameWritesOverCommit() {
    var open = ObjectRegistry.withoutCrossObjectRules(store, new DeterministicEnv(5));
    queues(open);
    write(open, Map.of("x", admit(open, "x", "a", 12)));
    write(open, Map.of("y", admit(open, "y", "b", 8)));
    assertThat(open.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted())
        .containsOnlyKeys("x", "y"); // 20 GPUs admitted on a cohort of 16
  }

  /** The admitter read b's quota as 8; the operator lowered it to 2 before the admission landed. */
  @Test
  void anAdmissionDecidedOnAStaleQuotaIsRefused() {
    queues(api);
    var b = api.get(Kinds.QUEUE, "b").orElseThrow();
    api.update(new Queue(b.metadata(), gpus(2), b.status()));
    var x = admit(api, "x", "a", 12);

    var refused = catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", x)));

    assertThat(refused.getMessage()).contains("borrow 4, and lend only 2");
  }

  /**
   * Issue 44: a quota lowered under what is admitted is taken (it was a 409 that {@code qm apply}
   * showed as "kept changing"); Q1 then holds in its second form: nothing more of the over-quota
   * class is admitted, what was admitted only goes down, and other classes are admitted as before.
   */
  @Test
  void aQuotaLoweredUnderWhatIsBorrowedIsTakenAndWhatIsAdmittedOnlyGoesDown() {
    queues(api);
    write(api, Map.of("x", admit(api, "x", "a", 12)));
    var b = api.get(Kinds.QUEUE, "b").orElseThrow();

    api.update(new Queue(b.metadata(), gpus(2), b.status()));
    assertThat(api.get(Kinds.QUEUE, "b").orElseThrow().spec()).isEqualTo(gpus(2));

    // a borrows 4 and b lends only 2: not one more GPU, in either queue.
    var one = admit(api, "one", "b", 1);
    var refused = catchThrowableOfType(ApiException.class, () -> write(api, Map.of("one", one)));
    assertThat(refused.getMessage()).contains("over quota: gpu: the cohort's queues borrow 4");

    // Another class is not over quota: admitted as before.
    var other = api.create(workload("other", "b", 3, Optional.empty(), "fpga"));
    write(
        api,
        Map.of(
            "other",
            new Admitted(
                other.metadata().uid(),
                "b",
                Map.of("w", 3),
                Demand.of(other.spec()),
                0,
                Instant.EPOCH)));

    // x finishes: its release is written, and then the cohort is within quota again.
    var ledger = api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    var rest = new HashMap<>(ledger.spec().admitted());
    rest.remove("x");
    api.update(ledger.withSpec(new QuotaLedgerSpec(List.of("a", "b"), rest)));
    write(api, Map.of("one", one));
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted())
        .containsOnlyKeys("other", "one");
  }

  /**
   * Issue 43: with 10,000 queues in one cohort each queue delete read every one of them (2-4 s).
   * While no queue of the cohort borrows, a delete reads only the queues admitted workloads use;
   * once one borrows, the cohort's lenders are read, and a lender it needs is kept.
   */
  @Test
  void aQueueDeleteReadsTheOtherQueuesOnlyWhenSomeoneBorrows() {
    var reads = new java.util.concurrent.atomic.AtomicInteger();
    var counting =
        new dev.quartermaster.store.ForwardingStore(store) {
          @Override
          public Optional<dev.quartermaster.store.KeyValue> get(String key) {
            if (key.startsWith(StoredObjects.key(Kinds.QUEUE, ""))) {
              reads.incrementAndGet();
            }
            return super.get(key);
          }

          @Override // a queue held decoded is read by its revision alone
          public java.util.OptionalLong modRevision(String key) {
            if (key.startsWith(StoredObjects.key(Kinds.QUEUE, ""))) {
              reads.incrementAndGet();
            }
            return super.modRevision(key);
          }
        };
    var on = new ObjectRegistry(counting, new DeterministicEnv(5));
    queues(on);
    var names = new java.util.ArrayList<>(List.of("a", "b"));
    for (int i = 0; i < 200; i++) {
      names.add("idle-" + i);
      on.create(new Queue(ObjectMeta.named("idle-" + i), gpus(1), null));
    }
    var x = admit(on, "x", "a", 8); // within a's own 8: nobody borrows
    on.create(
        new QuotaLedger(
            ObjectMeta.named("team"),
            new QuotaLedgerSpec(List.copyOf(names), Map.of("x", x)),
            null));

    reads.set(0);
    on.delete(Kinds.QUEUE, "idle-0");
    assertThat(reads.get()).as("queue reads of a delete while nobody borrows").isLessThan(5);

    var current = on.get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    names.remove("idle-0");
    on.update(
        current.withSpec(
            new QuotaLedgerSpec(
                List.copyOf(names), Map.of("x", x, "y", admit(on, "y", "a", 207)))));
    // a now borrows all 207 that b and the 199 idle queues lend: each is needed, and read.
    reads.set(0);
    var refused = catchThrowableOfType(ApiException.class, () -> on.delete(Kinds.QUEUE, "idle-1"));
    assertThat(refused.getMessage()).contains("borrow 207, and lend only 206");
    assertThat(reads.get()).isGreaterThan(200);
  }

  @Test
  void aQueueWithAdmittedWorkloadsKeepsItsCohortAndIsNotDeleted() {
    queues(api);
    write(api, Map.of("x", admit(api, "x", "a", 2)));
    var a = api.get(Kinds.QUEUE, "a").orElseThrow();
    var moved =
        new QueueSpec(
            Optional.of("other"),
            Map.of("gpu", 8),
            Map.of(),
            Map.of(),
            1,
            QueueOrdering.StrictFIFO);

    var refused =
        catchThrowableOfType(
            ApiException.class, () -> api.update(new Queue(a.metadata(), moved, a.status())));
    assertThat(refused.getMessage())
        .isEqualTo(
            "queue/a: spec.cohort cannot change while 1 workload(s) are admitted through it in"
                + " cohort team; it can once they finish or are deleted");
    var deleted = catchThrowableOfType(ApiException.class, () -> api.delete(Kinds.QUEUE, "a"));
    assertThat(deleted.getMessage()).startsWith("queue/a: cannot be deleted while 1 workload(s)");
  }

  @Test
  void onlyALiveWorkloadIsAdmittedThroughItsOwnQueue() {
    queues(api);
    var ghost =
        new Admitted("no-such-uid", "a", Map.of("w", 1), Map.of("gpu", 1), 0, Instant.EPOCH);
    var refused = catchThrowableOfType(ApiException.class, () -> write(api, Map.of("g", ghost)));
    assertThat(refused.getMessage())
        .isEqualTo(
            "quotaledger/team: spec.admitted.g: workload g does not exist; only a live workload is"
                + " admitted, through its own queue");

    var x = admit(api, "x", "a", 1);
    var elsewhere = new Admitted(x.uid(), "b", x.replicas(), x.usage(), 0, Instant.EPOCH);
    assertThat(
            catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", elsewhere)))
                .getMessage())
        .contains("workload x is of queue a");
  }

  @Test
  void anAdmittedWorkloadKeepsItsQueue() {
    queues(api);
    write(api, Map.of("x", admit(api, "x", "a", 2)));
    var x = api.get(Kinds.WORKLOAD, "x").orElseThrow();

    var refused =
        catchThrowableOfType(
            ApiException.class,
            () -> api.update(x.withSpec(x.spec().inQueue("b", Optional.empty()))));

    assertThat(refused.getMessage())
        .isEqualTo(
            "workload/x: spec.queue cannot change while the workload is admitted through queue a;"
                + " delete it and create it in the other queue");
    var pending = api.create(workload("y", "a", 1));
    assertThat(
            api.update(pending.withSpec(pending.spec().inQueue("b", Optional.empty())))
                .spec()
                .queueName())
        .as("a workload not admitted yet may move")
        .isEqualTo("b");
  }

  /** The ledger of cohort team as {@code admitted} and {@code nominated}, nothing else. */
  /** Worker {@code name} of workload {@code workload} (as stored), running {@code train}. */
  private dev.quartermaster.api.workload.Task worker(String name, String workload) {
    var owner = api.get(Kinds.WORKLOAD, workload).orElseThrow();
    return new dev.quartermaster.api.workload.Task(
        ObjectMeta.named(name)
            .withOwner(
                new dev.quartermaster.api.meta.OwnerReference(
                    Kinds.WORKLOAD.name(), workload, owner.metadata().uid())),
        new dev.quartermaster.api.workload.TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty()),
        null);
  }

  private QuotaLedger replace(Map<String, Admitted> admitted, Map<String, Nomination> nominated) {
    var current = api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    return api.update(
        current.withSpec(new QuotaLedgerSpec(List.of("a", "b"), admitted, nominated)));
  }

  private static Eviction by(Admitted preemptor, String name, EvictionReason reason) {
    return new Eviction(name, preemptor.uid(), reason, Instant.EPOCH);
  }

  /**
   * Q2 in the store: an eviction names a preemptor nominated for it in the same write, and is
   * rightful; equal priority in one queue is not, nor is a queue within its quota reclaimed from.
   */
  @Test
  void anEvictionIsRightfulAndNamesItsNominatedPreemptor() {
    queues(api);
    var low = admit(api, "low", "a", 4);
    write(api, Map.of("low", low));
    var p = admitHigh(api, "p", "a", 8);
    var equal = admit(api, "equal", "a", 8);
    var other = admit(api, "other", "b", 8);

    var unnominated =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of("low", low.evictedBy(by(p, "p", EvictionReason.Preempted))), Map.of()));
    assertThat(unnominated.getMessage())
        .contains("spec.admitted.low.eviction: p is not nominated for it");

    var samePriority = new Nomination(equal.uid(), "a", 0, List.of(low.uid()), Instant.EPOCH);
    var notRightful =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of("low", low.evictedBy(by(equal, "equal", EvictionReason.Preempted))),
                    Map.of("equal", samePriority)));
    assertThat(notRightful.getMessage()).contains("Preempted by equal is not rightful");
    var notBorrowing =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of("low", low.evictedBy(by(other, "other", EvictionReason.Reclaimed))),
                    Map.of(
                        "other", new Nomination(other.uid(), "b", 0, List.of(low.uid()), null))));
    assertThat(notBorrowing.getMessage()).contains("Reclaimed by other is not rightful");

    var higher = new Nomination(p.uid(), "a", 100, List.of(low.uid()), Instant.EPOCH);
    var written =
        replace(
            Map.of("low", low.evictedBy(by(p, "p", EvictionReason.Preempted))),
            Map.of("p", higher));
    assertThat(written.spec().admitted().get("low").evicting()).isTrue();
    var takenBack =
        catchThrowableOfType(ApiException.class, () -> replace(Map.of("low", low), Map.of()));
    assertThat(takenBack.getMessage()).contains("an eviction is never taken back");
  }

  /**
   * Issue 44: a workload that did not start in time gives its quota back with no preemptor. The
   * store refuses that eviction of an admission marked started, one that names a preemptor, and a
   * started mark taken back (the timeout would apply again to a workload that ran).
   */
  @Test
  void aStartTimeoutEvictsOnlyAnAdmissionThatHasNotStarted() {
    queues(api);
    var idle = admit(api, "idle", "a", 2);
    var ran = admit(api, "ran", "a", 2).markStarted();
    write(api, Map.of("idle", idle, "ran", ran));
    var timeout = new Eviction("", "", EvictionReason.StartTimeout, Instant.EPOCH);

    var started =
        catchThrowableOfType(
            ApiException.class,
            () -> replace(Map.of("idle", idle, "ran", ran.evictedBy(timeout)), Map.of()));
    assertThat(started.getMessage())
        .contains(
            "spec.admitted.ran.eviction: StartTimeout evicts only an admission that has not"
                + " started, and names no preemptor");
    var unstarted =
        catchThrowableOfType(
            ApiException.class, () -> replace(Map.of("idle", idle, "ran", admit(ran)), Map.of()));
    assertThat(unstarted.getMessage())
        .contains("spec.admitted.ran.started: an admission that started stays started");

    var written = replace(Map.of("idle", idle.evictedBy(timeout), "ran", ran), Map.of());
    assertThat(written.spec().admitted().get("idle").eviction()).contains(timeout);
  }

  /**
   * Issue 44: an {@code OverQuota} eviction (a queue set to {@code overQuota: Evict} taking back
   * what it uses over its quota) is accepted only if, in the ledger before the write, the victim's
   * queue used more of a class the victim uses than its nominal quota, the queue asked for it, and
   * it names no preemptor; otherwise a 409 naming the field and the rule, and nothing changes.
   */
  @Test
  void anOverQuotaEvictionTakesOnlyFromAQueueOverItsNominalQuotaThatAskedForIt() {
    queues(api);
    var x = admit(api, "x", "a", 6);
    var y = admit(api, "y", "a", 2);
    var z = admit(api, "z", "b", 2);
    write(api, Map.of("x", x, "y", y, "z", z));
    var evict = new Eviction("", "", EvictionReason.OverQuota, Instant.EPOCH);
    var a = api.get(Kinds.QUEUE, "a").orElseThrow();
    var b = api.get(Kinds.QUEUE, "b").orElseThrow();

    // Each row: queue a's spec, queue b's spec, the eviction, and why it is refused (empty: taken).
    record Row(QueueSpec a, QueueSpec b, String victim, Eviction e, String refusal) {}
    var rows =
        List.of(
            new Row(gpus(8), gpus(8), "x", evict, "overQuota Wait, quota {gpu=8}, uses [gpu 8]"),
            new Row(
                gpus(8).withOverQuota(OverQuota.Evict),
                gpus(8),
                "x",
                evict,
                "overQuota Evict, quota {gpu=8}, uses [gpu 8]"),
            new Row(gpus(4), gpus(8), "x", evict, "overQuota Wait, quota {gpu=4}, uses [gpu 8]"),
            new Row(
                gpus(4).withOverQuota(OverQuota.Evict),
                gpus(2).withOverQuota(OverQuota.Evict),
                "z",
                evict,
                "queue b: overQuota Evict, quota {gpu=2}, uses [gpu 2]"),
            new Row(gpus(4).withOverQuota(OverQuota.Evict), gpus(8), "x", evict, ""));
    // One that names a preemptor is refused before the guard, by the ledger's own rules (422).
    var named = new Eviction("z", z.uid(), EvictionReason.OverQuota, Instant.EPOCH);
    var invalid =
        catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", x.evictedBy(named))));
    assertThat(invalid.getMessage())
        .contains("spec.admitted.x.eviction.by: must be empty for OverQuota");
    for (var row : rows) {
      api.update(new Queue(a.metadata(), row.a(), a.status()));
      api.update(new Queue(b.metadata(), row.b(), b.status()));
      a = api.get(Kinds.QUEUE, "a").orElseThrow();
      b = api.get(Kinds.QUEUE, "b").orElseThrow();
      var victim = Map.of("x", x, "y", y, "z", z).get(row.victim());
      var change = Map.of(row.victim(), victim.evictedBy(row.e()));
      long before = store.currentRevision();
      if (row.refusal().isEmpty()) {
        var written = write(api, change);
        assertThat(written.spec().admitted().get(row.victim()).eviction()).contains(row.e());
        continue;
      }
      var refused = catchThrowableOfType(ApiException.class, () -> write(api, change));
      assertThat(refused).as(row.toString()).isNotNull();
      assertThat(refused.error().code()).as(refused.getMessage()).isEqualTo(409);
      assertThat(refused.getMessage())
          .contains(
              "spec.admitted."
                  + row.victim()
                  + ".eviction: OverQuota evicts only a workload of a queue set to overQuota:"
                  + " Evict that uses more of a class the workload uses than its nominal quota,"
                  + " and names no preemptor")
          .contains(row.refusal());
      assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);
    }
  }

  /** {@code a} as an admission not marked started. */
  private static Admitted admit(Admitted a) {
    return new Admitted(
        a.uid(),
        a.queue(),
        a.replicas(),
        a.usage(),
        a.priority(),
        a.at(),
        a.eviction(),
        a.preempted(),
        false);
  }

  /** The anti-cycle rule, judged by the store: v evicted p once, p may never evict v back. */
  @Test
  void aPreemptedWorkloadNeverEvictsItsPreemptorBack() {
    queues(api);
    var v = admitHigh(api, "v", "a", 2);
    var p = admitHigh(api, "p", "a", 2);
    var pRemembers =
        new Admitted(
            p.uid(),
            "a",
            p.replicas(),
            p.usage(),
            100,
            Instant.EPOCH,
            Optional.empty(),
            List.of(v.uid()));
    write(api, Map.of("p", pRemembers));
    var vBack = new Nomination(v.uid(), "a", 100, List.of(p.uid()), Instant.EPOCH);

    var refused =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of("p", pRemembers.evictedBy(by(v, "v", EvictionReason.Preempted))),
                    Map.of("v", vBack)));

    assertThat(refused.getMessage())
        .contains(
            "p evicted v to be admitted; a preempted workload never evicts its preemptor back");
  }

  /**
   * The anti-cycle rule's memory is the entry's own: p admitted again (grown, resized) with {@code
   * preempted} emptied would let v evict it back (sim seed 398 made exactly that).
   */
  @Test
  void anEntryAdmittedAgainKeepsWhomItEvicted() {
    queues(api);
    var v = admitHigh(api, "v", "a", 2);
    var p = admitHigh(api, "p", "a", 2);
    var pRemembers =
        new Admitted(
            p.uid(),
            "a",
            p.replicas(),
            p.usage(),
            100,
            Instant.EPOCH,
            Optional.empty(),
            List.of(v.uid()));
    write(api, Map.of("p", pRemembers));
    var forgetting =
        new Admitted(
            p.uid(), "a", p.replicas(), p.usage(), 100, Instant.EPOCH, Optional.empty(), List.of());

    var refused =
        catchThrowableOfType(ApiException.class, () -> write(api, Map.of("p", forgetting)));

    assertThat(refused.getMessage())
        .contains("spec.admitted.p.preempted")
        .contains("drops [" + v.uid() + "]");
  }

  /** A victim's entry is released only once none of its tasks runs: the quota covers what runs. */
  @Test
  void anEvictedEntryIsReleasedOnlyOnceItsTasksHaveStopped() {
    queues(api);
    var low = admit(api, "low", "a", 1);
    write(api, Map.of("low", low));
    var p = admitHigh(api, "p", "a", 8);
    var task = api.create(worker("low-w-0", "low"));
    replace(
        Map.of("low", low.evictedBy(by(p, "p", EvictionReason.Preempted))),
        Map.of("p", new Nomination(p.uid(), "a", 100, List.of(low.uid()), Instant.EPOCH)));
    // A workload controller whose cache lags cannot start it again meanwhile.
    var again =
        ObjectMeta.named("low-w-0b")
            .withOwner(task.metadata().owner().get())
            .withLabels(Map.of(dev.quartermaster.api.workload.SpecDecision.CREATED_AT, "1"));
    var late = catchThrowableOfType(ApiException.class, () -> api.create(task.withMetadata(again)));
    assertThat(late.getMessage()).contains("workload low is being evicted (Preempted by p)");

    var refused =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of(),
                    Map.of("p", new Nomination(p.uid(), "a", 100, List.of(low.uid()), null))));
    assertThat(refused.getMessage()).contains("task low-w-0 still runs");

    api.delete(Kinds.TASK, task.metadata().name());
    assertThat(
            replace(
                    Map.of(),
                    Map.of("p", new Nomination(p.uid(), "a", 100, List.of(low.uid()), null)))
                .spec()
                .admitted())
        .isEmpty();
  }

  /**
   * Seed 1837 (`qm sim --mig 1 --share 1`): an admission controller whose caches lagged saw a
   * workload scaled to 0 and without tasks, judged its job over and released its entry, while the
   * workload had been scaled up again and its worker was pending — a worker no admission covered. A
   * release of a live workload's entry waits for its workers, as a shrink does.
   */
  @Test
  void aLiveWorkloadsEntryIsNotReleasedWhileOneOfItsWorkersRuns() {
    queues(api);
    var x = admit(api, "x", "a", 2);
    write(api, Map.of("x", x));
    var task = api.create(worker("x-w-1", "x"));
    long before = store.currentRevision();

    var refused = catchThrowableOfType(ApiException.class, () -> replace(Map.of(), Map.of()));
    assertThat(refused.getMessage()).contains("spec.admitted.x.replicas.w: task x-w-1 still runs");
    assertThat(store.currentRevision()).isEqualTo(before);

    api.delete(Kinds.TASK, task.metadata().name());
    assertThat(replace(Map.of(), Map.of()).spec().admitted()).isEmpty();
  }

  /**
   * Issue 43, item 8: an admin write admitting a 4-GPU job with no usage was accepted, and 8 GPUs
   * then ran against a quota of 4 + 2. The store counts the usage from the workload's spec.
   */
  @Test
  void aLedgerCannotSayAWorkloadUsesOtherThanItsSpecAsks() {
    queues(api);
    var x = admit(api, "x", "a", 4);
    long before = store.currentRevision();

    for (var usage : List.<Map<String, Integer>>of(Map.of(), Map.of("gpu", 0), Map.of("gpu", 5))) {
      var refused =
          catchThrowableOfType(
              ApiException.class, () -> write(api, Map.of("x", x.resized(x.replicas(), usage))));
      assertThat(refused.error().code()).isEqualTo(422);
      assertThat(refused.getMessage())
          .isEqualTo(
              "quotaledger/team is invalid: spec.admitted.x.usage: is "
                  + usage
                  + ", but the workload's admitted replicas {w=4} use {gpu=4}; the store counts a"
                  + " workload's usage from its spec");
    }
    var unknownGroup = x.resized(Map.of("w", 4, "ghost", 1), x.usage());
    assertThat(
            catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", unknownGroup)))
                .getMessage())
        .contains("spec.admitted.x.replicas.ghost: workload x has no group ghost: [w]");
    assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);

    write(api, Map.of("x", x));
    // A scale-down's shrink is counted the same way: 2 replicas use 2 GPUs, not 0.
    var w = api.get(Kinds.WORKLOAD, "x").orElseThrow();
    api.update(w.withSpec(w.spec().withGroups(List.of(w.spec().groups().get(0).withReplicas(2)))));
    var cheap = x.resized(Map.of("w", 2), Map.of("gpu", 0));
    assertThat(
            catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", cheap)))
                .getMessage())
        .contains(
            "spec.admitted.x.usage: is {gpu=0}, but the workload's admitted replicas {w=2}"
                + " use {gpu=2}");
    assertThat(write(api, Map.of("x", x.resized(Map.of("w", 2), Map.of("gpu", 2)))).spec())
        .extracting(l -> l.admitted().get("x").usage())
        .isEqualTo(Map.of("gpu", 2));
  }

  /**
   * Issue 46, item 5: a slice of a MIG class costs its compute slices too, as the store reads the
   * class — a ledger that leaves them out (and so would admit past a quota of compute slices) is
   * refused.
   */
  @Test
  void aLedgerCountsASlicesComputeSlicesAsItsClassSays() {
    queues(api);
    api.create(
        new dev.quartermaster.api.device.DeviceClass(
            ObjectMeta.named("mig-3g.71gb"),
            new dev.quartermaster.api.device.DeviceClassSpec(
                "mig",
                List.of(
                    new dev.quartermaster.api.device.DeviceSelector(
                        "profile",
                        dev.quartermaster.api.device.DeviceSelector.Operator.In,
                        List.of("3g.71gb")))),
            null));
    var w = api.create(workload("s", "a", 2, Optional.empty(), "mig-3g.71gb"));
    var blind =
        new Admitted(
            w.metadata().uid(), "a", Map.of("w", 2), Map.of("mig-3g.71gb", 2), 0, Instant.EPOCH);
    assertThat(
            catchThrowableOfType(ApiException.class, () -> write(api, Map.of("s", blind)))
                .getMessage())
        .contains(
            "spec.admitted.s.usage: is {mig-3g.71gb=2}, but the workload's admitted replicas {w=2}"
                + " use {mig-3g.71gb=2, mig-compute-slices=6}");
    var counted = blind.resized(Map.of("w", 2), Map.of("mig-3g.71gb", 2, "mig-compute-slices", 6));
    assertThat(write(api, Map.of("s", counted)).spec().admitted().get("s").usage())
        .containsEntry("mig-compute-slices", 6);
  }

  /**
   * Issue 43, item 8: raising an admitted entry's priority to 10⁹ made it unpreemptable. A
   * priority, an entry's or a nomination's, is its workload's class's value.
   */
  @Test
  void aLedgerCannotSayAWorkloadsPriorityIsOtherThanItsClasss() {
    queues(api);
    var x = admit(api, "x", "a", 2);
    write(api, Map.of("x", x));
    var raised = new Admitted(x.uid(), "a", x.replicas(), x.usage(), 1_000_000_000, x.at());

    var refused = catchThrowableOfType(ApiException.class, () -> write(api, Map.of("x", raised)));

    assertThat(refused.error().code()).isEqualTo(422);
    assertThat(refused.getMessage())
        .isEqualTo(
            "quotaledger/team is invalid: spec.admitted.x.priority: is 1000000000, but workload"
                + " x's priority is 0 (no priority class); the store takes a priority from the"
                + " workload's class");
    var high = admitHigh(api, "h", "b", 2);
    var asHigh = new Admitted(high.uid(), "b", high.replicas(), high.usage(), 0, high.at());
    assertThat(
            catchThrowableOfType(ApiException.class, () -> write(api, Map.of("h", asHigh)))
                .getMessage())
        .contains(
            "spec.admitted.h.priority: is 0, but workload h's priority is 100 (priority"
                + " class high)");
    assertThat(write(api, Map.of("h", high)).spec().admitted().get("h").priority()).isEqualTo(100);

    var p = admit(api, "p", "a", 8);
    var inflated = new Nomination(p.uid(), "a", 1_000_000_000, List.of(x.uid()), Instant.EPOCH);
    var nominated =
        catchThrowableOfType(
            ApiException.class,
            () ->
                replace(
                    Map.of("x", x.evictedBy(by(p, "p", EvictionReason.Preempted)), "h", high),
                    Map.of("p", inflated)));
    assertThat(nominated.getMessage())
        .contains("spec.nominated.p.priority: is 1000000000, but workload p's priority is 0");
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted().get("x"))
        .isEqualTo(x);
  }

  /**
   * Issue 43, item 7 in the store: two queues of quota {@code Integer.MAX_VALUE} summed negative,
   * and every admission of their cohort was refused.
   */
  @Test
  void twoQueuesOfTheLargestQuotaStillAdmit() {
    api.create(new Queue(ObjectMeta.named("a"), gpus(Integer.MAX_VALUE), null));
    api.create(new Queue(ObjectMeta.named("b"), gpus(Integer.MAX_VALUE), null));
    assertThat(write(api, Map.of("x", admit(api, "x", "a", 4))).spec().admitted())
        .containsOnlyKeys("x");
  }

  /**
   * Issue 43, item 9: a ledger that admitted a running workload could be deleted; the cohort then
   * stayed stuck and the task ran unadmitted.
   */
  @Test
  void aLedgerIsDeletedOnlyOnceItAdmitsNothing() {
    queues(api);
    write(api, Map.of("x", admit(api, "x", "a", 2)));

    var refused =
        catchThrowableOfType(ApiException.class, () -> api.delete(Kinds.QUOTA_LEDGER, "team"));

    assertThat(refused.error().code()).isEqualTo(409);
    assertThat(refused.getMessage())
        .isEqualTo(
            "quotaledger/team: cannot be deleted while it admits 1 workload(s) [x]; the admission"
                + " controller releases each once it finishes or is deleted");
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team")).isPresent();
    replace(Map.of(), Map.of());
    api.delete(Kinds.QUOTA_LEDGER, "team");
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team")).isEmpty();
  }

  /**
   * Issue 43, item 9: a second ledger could list another cohort's queue. A ledger is named as its
   * cohort (one per cohort), and lists only queues of that cohort, admitting or not.
   */
  @Test
  void aLedgerListsOnlyItsOwnCohortsQueues() {
    queues(api);
    var other =
        new QuotaLedger(
            ObjectMeta.named("other"), new QuotaLedgerSpec(List.of("a"), Map.of()), null);

    var refused = catchThrowableOfType(ApiException.class, () -> api.create(other));

    assertThat(refused.error().code()).isEqualTo(409);
    assertThat(refused.getMessage())
        .isEqualTo(
            "quotaledger/other: spec.queues: queue a is of cohort team, not other; a ledger lists"
                + " its own cohort's queues, as they are now");
    var ghost =
        catchThrowableOfType(
            ApiException.class,
            () ->
                api.create(
                    new QuotaLedger(
                        ObjectMeta.named("team"),
                        new QuotaLedgerSpec(List.of("a", "ghost"), Map.of()),
                        null)));
    assertThat(ghost.getMessage()).contains("spec.queues: queue ghost does not exist");
    assertThat(api.list(Kinds.QUOTA_LEDGER).items()).isEmpty();
    // The cohort's own ledger, listing its own queues: fine, and again after one of them is gone
    // (a release does not wait on a queue listed before).
    write(api, Map.of());
    api.delete(Kinds.QUEUE, "b");
    assertThat(write(api, Map.of()).spec().queues()).containsExactly("a", "b");
  }
}
