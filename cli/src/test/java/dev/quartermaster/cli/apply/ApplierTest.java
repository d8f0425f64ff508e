package dev.quartermaster.cli.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Demand;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code qm apply}'s one object: a 409 that is the server's own judgement is shown as given. */
class ApplierTest {
  @TempDir Path dir;

  private static Queue queue(String name, String cohort) {
    return new Queue(
        ObjectMeta.named(name),
        new QueueSpec(
            Optional.of(cohort),
            Map.of("gpu", 8),
            Map.of(),
            Map.of(),
            1,
            QueueOrdering.BestEffortFIFO),
        null);
  }

  @Test
  void aRefusalThatIsNoRaceIsShownAsTheServerGaveItAtOnce() {
    var env = new DeterministicEnv(1);
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var api = new ObjectRegistry(store, env);
      api.create(queue("team-a", "lab"));
      var claim =
          new ClaimTemplate(
              "gpus",
              new ResourceClaimSpec(
                  List.of(new DeviceRequest("gpus", "gpu", 4, List.of())), Optional.empty()));
      var group =
          new WorkerGroup(
              "workers",
              1,
              new TaskTemplate(
                  List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
              List.of(claim),
              RestartPolicy.OnFailure);
      var w =
          api.create(
              new Workload(
                  ObjectMeta.named("job"),
                  new WorkloadSpec(List.of(group), Optional.empty())
                      .inQueue("team-a", Optional.empty()),
                  null));
      api.create(
          new QuotaLedger(
              ObjectMeta.named("lab"),
              new QuotaLedgerSpec(
                  List.of("team-a"),
                  Map.of(
                      "job",
                      new Admitted(
                          w.metadata().uid(),
                          "team-a",
                          Map.of("workers", 1),
                          Demand.of(w.spec()),
                          0,
                          env.now()))),
              null));
      var revision = api.get(dev.quartermaster.api.meta.Kinds.QUEUE, "team-a").orElseThrow();

      // Moving a queue with an admitted workload to another cohort is refused by the store (409)
      // however often it is tried: apply says what the server said, not "kept changing".
      assertThatThrownBy(() -> new Applier(api).apply(queue("team-a", "elsewhere")))
          .isInstanceOf(ApiException.class)
          .hasMessage(
              "queue/team-a: spec.cohort cannot change while 1 workload(s) are admitted through it"
                  + " in cohort lab; it can once they finish or are deleted");
      assertThat(api.get(dev.quartermaster.api.meta.Kinds.QUEUE, "team-a").orElseThrow())
          .isEqualTo(revision);
    }
  }
}
