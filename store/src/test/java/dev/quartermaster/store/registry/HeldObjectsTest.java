package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Demand;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cohort's ledger, read by the rules of every worker's create, is read whole only when it has
 * changed: the store is asked its revision ({@link Store#modRevision}), and the object held decoded
 * at that revision answers. A ledger changed by another writer is read again, and a batch that
 * writes the ledger judges its later writes against what it wrote. Beside them, a reader that
 * trusts what it holds without asking (a store whose revisions are remembered, not read) lets a
 * worker in that no admission covers.
 */
class HeldObjectsTest {
  private static final String LEDGER = StoredObjects.key(Kinds.QUOTA_LEDGER, "team");

  @TempDir Path dir;
  SqliteStore sqlite;

  @BeforeEach
  void open() {
    sqlite = SqliteStore.open(dir.resolve("store.db"));
  }

  @AfterEach
  void close() {
    sqlite.close();
  }

  @Test
  void aWorkersCreateAsksTheLedgersRevisionAndReadsItsValueNoMore() {
    var counted = new CountingStore(sqlite);
    var api = new ObjectRegistry(counted, new DeterministicEnv(5));
    admitX(api, 3);
    counted.valueReads.clear();

    for (int i = 0; i < 3; i++) {
      api.create(worker(api, "x-w-" + i));
    }

    assertThat(counted.valueReads.getOrDefault(LEDGER, new AtomicInteger()).get())
        .as("value reads of the ledger")
        .isZero();
    assertThat(counted.revisionReads.get(LEDGER).get()).isGreaterThanOrEqualTo(3);
  }

  /**
   * A task's updates (its pin, its Running) each read the task they replace: the one this server
   * wrote last is held in the shared table, and only its revision is read.
   */
  @Test
  void anUpdateOfATaskThisServerWroteReadsItsRevisionNotItsValue() {
    var counted = new CountingStore(sqlite);
    var api = new ObjectRegistry(counted, new DeterministicEnv(5));
    admitX(api, 1);
    var task = api.create(worker(api, "x-w-0"));
    var key = StoredObjects.key(Kinds.TASK, "x-w-0");

    for (var phase : List.of(TaskPhase.Scheduled, TaskPhase.Running)) {
      task =
          api.updateStatus(
              task.withStatus(
                  new TaskStatus(
                      phase,
                      "",
                      "",
                      Optional.of("node-1"),
                      Optional.empty(),
                      Optional.empty(),
                      Optional.empty(),
                      Optional.empty(),
                      List.of())));
    }

    assertThat(task.status().phase()).isEqualTo(TaskPhase.Running);
    assertThat(counted.valueReads.getOrDefault(key, new AtomicInteger()).get()).isZero();
    assertThat(counted.revisionReads.get(key).get()).isEqualTo(2);
  }

  @Test
  void aLedgerAnotherWriterChangedIsReadAgain() {
    var one = afterAnotherWriterReleasedX(sqlite);
    assertThat(one.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted()).isEmpty();

    var refused = catchThrowableOfType(ApiException.class, () -> one.create(worker(one, "x-w-0")));

    assertThat(refused.getMessage())
        .isEqualTo(
            "task/x-w-0: workload x is not admitted by its queue a; a worker is created only once"
                + " its queue admits it");
  }

  /**
   * Its rules' reads stay safe, each pinned by a compare on the revision it read (its create would
   * only fail again and again), but its reads serve a ledger a finished write has replaced.
   */
  @Test
  void aReaderTrustingWhatItHoldsServesALedgerThatIsGone() {
    var one = afterAnotherWriterReleasedX(new RememberedRevisions(sqlite));

    assertThat(one.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted())
        .as("the naive reader's ledger")
        .containsKey("x");
  }

  @Test
  void aBatchThatReleasesTheEntryJudgesItsWorkerAgainstWhatItWrote() {
    var api = new ObjectRegistry(sqlite, new DeterministicEnv(5));
    admitX(api, 1);
    var held = api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    var released = held.withSpec(new QuotaLedgerSpec(List.of("a"), Map.of()));

    var refused =
        catchThrowableOfType(
            ApiException.class,
            () ->
                api.commit(
                    List.of(new Write.Update(released), new Write.Create(worker(api, "x-w-0")))));

    assertThat(refused.getMessage()).contains("workload x is not admitted by its queue a");
    assertThat(api.get(Kinds.QUOTA_LEDGER, "team").orElseThrow()).isEqualTo(held);
    assertThat(api.get(Kinds.TASK, "x-w-0")).isEmpty();
  }

  /**
   * Server one admits x and holds the ledger it wrote; server two, on the same store, releases x's
   * entry. Server one, to go on with.
   */
  private static ObjectRegistry afterAnotherWriterReleasedX(Store store) {
    var one = new ObjectRegistry(store, new DeterministicEnv(5));
    var two = new ObjectRegistry(store, new DeterministicEnv(6));
    admitX(one, 1);
    assertThat(one.get(Kinds.QUOTA_LEDGER, "team").orElseThrow().spec().admitted())
        .containsKey("x");
    var ledger = two.get(Kinds.QUOTA_LEDGER, "team").orElseThrow();
    two.update(ledger.withSpec(new QuotaLedgerSpec(List.of("a"), Map.of())));
    return one;
  }

  /** Queue a of cohort team, workload x of {@code replicas} workers, admitted whole. */
  private static void admitX(ObjectRegistry api, int replicas) {
    api.create(
        new Queue(
            ObjectMeta.named("a"),
            new QueueSpec(
                Optional.of("team"),
                Map.of("gpu", 8),
                Map.of(),
                Map.of(),
                1,
                QueueOrdering.StrictFIFO),
            null));
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "w",
            replicas,
            new TaskTemplate(
                List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.OnFailure);
    var x =
        api.create(
            new Workload(
                ObjectMeta.named("x"),
                new WorkloadSpec(List.of(group), Optional.empty()).inQueue("a", Optional.empty()),
                null));
    var entry =
        new Admitted(
            x.metadata().uid(), "a", Map.of("w", replicas), Demand.of(x.spec()), 0, Instant.EPOCH);
    api.create(
        new QuotaLedger(
            ObjectMeta.named("team"), new QuotaLedgerSpec(List.of("a"), Map.of("x", entry)), null));
  }

  private static Task worker(ObjectRegistry api, String name) {
    var owner = api.get(Kinds.WORKLOAD, "x").orElseThrow();
    return new Task(
        ObjectMeta.named(name)
            .withOwner(new OwnerReference(Kinds.WORKLOAD.name(), "x", owner.metadata().uid()))
            .withLabels(Map.of(SpecDecision.CREATED_AT, "1")),
        new TaskSpec(
            Optional.empty(),
            List.of("train"),
            Map.of(),
            List.of(),
            List.of(),
            "exec",
            Optional.empty()),
        null);
  }

  /** Counts, per key, the reads of a value and the reads of a revision alone. */
  private static final class CountingStore extends ForwardingStore {
    final Map<String, AtomicInteger> valueReads = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> revisionReads = new ConcurrentHashMap<>();

    CountingStore(Store delegate) {
      super(delegate);
    }

    @Override
    public Optional<KeyValue> get(String key) {
      valueReads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      return delegate.get(key);
    }

    @Override
    public OptionalLong modRevision(String key) {
      revisionReads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      return delegate.modRevision(key);
    }
  }

  /**
   * The naive reader: a key's revision, once read, is taken as still the key's, so whatever is held
   * decoded passes for current.
   */
  private static final class RememberedRevisions extends ForwardingStore {
    private final Map<String, OptionalLong> first = new ConcurrentHashMap<>();

    RememberedRevisions(Store delegate) {
      super(delegate);
    }

    @Override
    public OptionalLong modRevision(String key) {
      return first.computeIfAbsent(key, delegate::modRevision);
    }
  }
}
