package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QueueStatus;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.DeterministicEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code qm_queue_*} from the queues, and {@code qm_admission_wait_seconds} from the ledgers. */
class QueueMetricsTest {
  static Queue teamB() {
    return new Queue(
        ObjectMeta.named("team-b"),
        new QueueSpec(
            Optional.of("lab"),
            Map.of("gpu", 4),
            Map.of(),
            Map.of(),
            1,
            QueueOrdering.BestEffortFIFO),
        new QueueStatus(1, 2, Map.of("gpu", 6, "channel", 1), Map.of("gpu", 2), Map.of()));
  }

  @Test
  void everyQueueIsCountedAndEveryClassItLimitsOrUsesIsPresentZeroIncluded() {
    var census =
        QueueCensus.of(List.of(teamB(), new Queue(ObjectMeta.named("default"), null, null)));

    assertThat(census.pending()).isEqualTo(Map.of("team-b", 1L, "default", 0L));
    assertThat(census.admitted()).isEqualTo(Map.of("team-b", 2L, "default", 0L));
    assertThat(census.used())
        .isEqualTo(
            Map.of(new QueueClass("team-b", "gpu"), 6L, new QueueClass("team-b", "channel"), 1L));
    assertThat(census.borrowed())
        .isEqualTo(
            Map.of(new QueueClass("team-b", "gpu"), 2L, new QueueClass("team-b", "channel"), 0L));
    assertThat(census.quota()).isEqualTo(Map.of(new QueueClass("team-b", "gpu"), 4L));
  }

  private static Workload workload(String name, Instant created) {
    return new Workload(
        ObjectMeta.named(name).withUid("uid-" + name).withCreatedAt(created), null, null);
  }

  private static QuotaLedger ledger(Map<String, Admitted> admitted) {
    return new QuotaLedger(
        ObjectMeta.named("lab"), new QuotaLedgerSpec(List.of("team-b"), admitted), null);
  }

  private static Admitted admitted(String name, Instant at) {
    return new Admitted("uid-" + name, "team-b", Map.of("w", 1), Map.of("gpu", 4), 0, at);
  }

  @Test
  void aWaitIsRecordedOncePerAdmissionFromCreationAndNotForAdmissionsBeforeTheServerStarted() {
    var env = new DeterministicEnv(1);
    var before = env.now().minusSeconds(600);
    var registry = new SimpleMeterRegistry();
    var workloads = new HashMap<String, Workload>();
    workloads.put("old", workload("old", before.minusSeconds(5)));
    var handler = new AdmissionWaitTime(env, registry, n -> Optional.ofNullable(workloads.get(n)));

    // A restart replays the ledger: its admission is long past.
    var replayed = ledger(Map.of("old", admitted("old", before)));
    handler.onAdd(replayed);

    workloads.put("new", workload("new", env.now()));
    env.advance(Duration.ofSeconds(30));
    var next = ledger(Map.of("old", admitted("old", before), "new", admitted("new", env.now())));
    handler.onUpdate(replayed, next);
    handler.onUpdate(next, next);

    var timer = registry.get("qm.admission.wait").tag("queue", "team-b").timer();
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(TimeUnit.SECONDS)).isEqualTo(30.0);
  }

  /** Each eviction is counted once, by the victim's queue and why; a restart's replay is not. */
  @Test
  void anEvictionIsCountedOnceByQueueAndReason() {
    var env = new DeterministicEnv(1);
    var registry = new SimpleMeterRegistry();
    var handler = new EvictionCount(env, registry);
    var old =
        admitted("old", env.now())
            .evictedBy(
                new dev.quartermaster.api.queue.Eviction(
                    "p",
                    "uid-p",
                    dev.quartermaster.api.queue.EvictionReason.Preempted,
                    env.now().minusSeconds(60)));
    var replayed = ledger(Map.of("old", old));
    handler.onAdd(replayed);

    env.advance(Duration.ofSeconds(5));
    var victim = admitted("victim", env.now());
    var before = ledger(Map.of("old", old, "victim", victim));
    handler.onUpdate(replayed, before);
    var evicted =
        ledger(
            Map.of(
                "old",
                old,
                "victim",
                victim.evictedBy(
                    new dev.quartermaster.api.queue.Eviction(
                        "q",
                        "uid-q",
                        dev.quartermaster.api.queue.EvictionReason.Reclaimed,
                        env.now()))));
    handler.onUpdate(before, evicted);
    handler.onUpdate(evicted, evicted);

    assertThat(
            registry
                .get("qm.evictions")
                .tag("queue", "team-b")
                .tag("reason", "Reclaimed")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(registry.find("qm.evictions").tag("reason", "Preempted").counter()).isNull();
  }
}
