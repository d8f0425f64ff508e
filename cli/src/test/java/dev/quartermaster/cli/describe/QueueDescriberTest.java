package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Demand;
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
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm describe queue}, {@code workload}, {@code priorityclass} and {@code quotaledger} over
 * two teams in cohort lab: team-a (8 GPUs, lends at most 2) and team-b (4 GPUs), where team-b's
 * first job is admitted and its second and third wait.
 */
class QueueDescriberTest {
  @TempDir Path dir;

  private static Queue queue(String name, int gpus, Map<String, Integer> lending) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(
            Optional.of("lab"),
            Map.of("gpu", gpus),
            Map.of(),
            lending,
            1,
            QueueOrdering.BestEffortFIFO),
        null);
  }

  private static Workload workload(String name, int gpus, Optional<String> priority) {
    var claim =
        new ClaimTemplate(
            "gpus",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpus", "gpu", gpus, List.of())), Optional.empty()));
    var group =
        new WorkerGroup(
            "workers",
            1,
            new TaskTemplate(
                List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
            List.of(claim),
            RestartPolicy.OnFailure);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()).inQueue("team-b", priority),
        null);
  }

  /** Team-b's spec changed to this once its first job is admitted, if given. */
  private Optional<QueueSpec> teamB = Optional.empty();

  private int stores;

  private String describeEach(String... kindAndName) {
    var env = new DeterministicEnv(1);
    try (var store = SqliteStore.open(dir.resolve("store-" + stores++ + ".db"))) {
      var api = new ObjectRegistry(store, env);
      api.create(
          new PriorityClass(ObjectMeta.named("urgent"), new PriorityClassSpec(100, ""), null));
      api.create(queue("team-a", 8, Map.of("gpu", 2)));
      api.create(queue("team-b", 4, Map.of()));
      var first = api.create(workload("first", 4, Optional.empty()));
      env.advance(Duration.ofSeconds(10));
      api.create(workload("second", 4, Optional.empty()));
      env.advance(Duration.ofSeconds(10));
      api.create(workload("hurry", 1, Optional.of("urgent")));
      api.create(
          new QuotaLedger(
              ObjectMeta.named("lab"),
              new QuotaLedgerSpec(
                  List.of("team-a", "team-b"),
                  Map.of(
                      "first",
                      new Admitted(
                          first.metadata().uid(),
                          "team-b",
                          Map.of("workers", 1),
                          Demand.of(first.spec()),
                          0,
                          env.now().minusSeconds(15)))),
              null));
      env.advance(Duration.ofSeconds(40));
      teamB.ifPresent(
          spec -> {
            var b = api.get(Kinds.QUEUE, "team-b").orElseThrow();
            api.update(new Queue(b.metadata(), spec, b.status()));
          });
      var out = new StringBuilder();
      for (int i = 0; i < kindAndName.length; i += 2) {
        out.append(describe(api, kindAndName[i], kindAndName[i + 1], env.now()));
      }
      return out.toString();
    }
  }

  private static String describe(ApiClient api, String kind, String name, Instant now) {
    var k = Kinds.byName(kind).orElseThrow();
    return Describers.describe(api.get(k, name).orElseThrow(), new DescribeContext(api, now));
  }

  @Test
  void aQueueShowsItsQuotaItsAdmittedAndItsPendingInOrderWithWhy() {
    var text = describeEach("Queue", "team-b");
    assertThat(text)
        .containsPattern("Cohort: +lab\n")
        .containsPattern("Ordering: +BestEffortFIFO\n")
        .containsPattern("Over Quota: +Wait: within what it may hold\n")
        .containsPattern(
            "Quota:\n"
                + "  CLASS +QUOTA +USED +BORROWED +LENT +ROOM +BORROWING LIMIT +LENDING LIMIT\n"
                + "  gpu +4 +4 +0 +0 +2 +none +none\n")
        .containsPattern("Admitted:\n  NAME +USAGE +PRIORITY +ADMITTED\n  first +gpu=4 +0 +55s\n")
        .containsPattern(
            "Pending:\n"
                + "  # +NAME +USAGE +PRIORITY +WAITING +WHY\n"
                + "  1 +hurry +gpu=1 +urgent \\(100\\) +40s +its quota fits; the admission"
                + " controller has not taken it yet; 0 ahead of it\n"
                + "  2 +second +gpu=4 +0 +50s +needs gpu 4: quota gpu 4/4 used; cohort can lend"
                + " 2; 1 ahead of it\n");
  }

  /**
   * Team-b lowered to 1 GPU under its admitted 4, team-a lending 2: it may hold 3, and with {@code
   * overQuota: Evict} says its workloads are evicted until it is within.
   */
  @Test
  void aQueueOverWhatItMayHoldSaysWhatItDoesAboutIt() {
    var lowered = queue("team-b", 1, Map.of()).spec();
    teamB = Optional.of(lowered.withOverQuota(dev.quartermaster.api.queue.OverQuota.Evict));
    assertThat(describeEach("Queue", "team-b"))
        .containsPattern(
            "Over Quota: +Evict: gpu: 4 used, may hold 3; its workloads are evicted, lowest"
                + " priority and newest first, until it is within\n");
    teamB = Optional.of(lowered);
    assertThat(describeEach("Queue", "team-b"))
        .containsPattern(
            "Over Quota: +Wait: gpu: 4 used, may hold 3; nothing more of it is admitted until"
                + " enough finishes\n");
  }

  @Test
  void aWorkloadSaysWhereItStandsInItsQueue() {
    var text = describeEach("Workload", "second", "Workload", "first");
    assertThat(text)
        .contains(
            "Admission:\n"
                + "  State:     Pending\n"
                + "  Queue:     team-b\n"
                + "  Position:  2 (1 ahead of it)\n"
                + "  Why:       needs gpu 4: quota gpu 4/4 used; cohort can lend 2; 1 ahead of it\n")
        .contains(
            "Admission:\n"
                + "  State:          Admitted 55s ago\n"
                + "  Queue:          team-b (cohort lab)\n"
                + "  Usage:          gpu=4\n"
                + "  Priority:       0\n"
                + "  Start Timeout:  300s: unless every task it needs runs by then, its quota goes"
                + " back\n");
  }

  @Test
  void aPriorityClassAndALedgerDescribeToo() {
    var text = describeEach("PriorityClass", "urgent", "QuotaLedger", "lab");
    assertThat(text)
        .containsPattern("Value: +100\n")
        .containsPattern("Workloads: +hurry \\(queue team-b\\)\n")
        .containsPattern("Queues: +team-a, team-b\n")
        .containsPattern("  first +team-b +gpu=4 +workers=1 +0 +55s\n");
  }
}
