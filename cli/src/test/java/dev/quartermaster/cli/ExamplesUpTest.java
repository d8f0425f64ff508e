package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every file in {@code examples/} applied to a default {@code qm up}, as a new user would, reaching
 * the state its comment promises; between examples what was applied is deleted again. volumes.yaml,
 * domain-job.yaml and gang-job.yaml are run by {@link VolumesUpTest}, {@link DomainUpTest} and
 * {@link GangUpTest}, queues.yaml and queued-jobs.yaml by {@link QueueUpTest}, teams.yaml and
 * teams-urgent.yaml by {@link TeamsUpTest}, each with the checks it needs; this test makes sure no
 * file is left out.
 */
@Timeout(400)
class ExamplesUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);

  /** Run, with their own checks, elsewhere. */
  static final Set<String> ELSEWHERE =
      Set.of(
          "volumes.yaml",
          "domain-job.yaml",
          "gang-job.yaml",
          "queues.yaml",
          "queued-jobs.yaml",
          "teams.yaml",
          "teams-urgent.yaml",
          "mig.yaml", // MigUpTest, under qm up --simulated-model H200
          "mig-whole.yaml",
          "timeslice.yaml", // TimeSliceUpTest, after qm node share
          "mps.yaml"); // MpsUpTest, after qm node share

  @Test
  void everyExampleAppliesAndReachesItsStateUnderADefaultUp() throws Exception {
    var covered = new java.util.TreeSet<String>();
    try (var up = UpProcess.start("qmx")) {
      var api = up.api();

      // The README's first step: a workload of GPU workers, all Running.
      apply(up, covered, "deviceclass.yaml", "training.yaml");
      up.await(
          "every task of workload training Running", BOUND, () -> allRunning(api, "training", 5));
      delete(up, "workload", "training");
      up.await("workload training's tasks gone", BOUND, () -> tasksOf(api, "training").isEmpty());

      // The fine-tune on H100-80GB, reading the datasets volume.
      apply(up, covered, "volume.yaml", "workload.yaml");
      up.await(
          "every task of workload finetune Running, the workers on h100-80g GPUs",
          BOUND,
          () -> allRunning(api, "finetune", 5));
      delete(up, "workload", "finetune");
      up.await("workload finetune's tasks gone", BOUND, () -> tasksOf(api, "finetune").isEmpty());

      // A launcher and its workers, one workload gang: placed together, all Running.
      apply(up, covered, "gang-launcher-job.yaml");
      up.await(
          "the launcher and the three workers of launcher-job Running",
          BOUND,
          () -> allRunning(api, "launcher-job", 4));
      delete(up, "workload", "launcher-job");
      up.await(
          "workload launcher-job's tasks gone",
          BOUND,
          () -> tasksOf(api, "launcher-job").isEmpty());

      // The one-off smoke test with its stand-alone claim: it runs to the end.
      apply(up, covered, "resourceclaim.yaml", "task.yaml");
      up.await(
          "task smoke-test Succeeded",
          BOUND,
          () ->
              api.get(Kinds.TASK, "smoke-test")
                  .filter(t -> t.status().phase() == TaskPhase.Succeeded)
                  .isPresent());
      var logs = new StringWriter();
      assertThat(up.cli(logs, "logs", "smoke-test")).as(logs.toString()).isZero();
      assertThat(logs.toString()).contains("GPUs GPU-").contains("no nvidia-smi on this node");

      // Objects an agent or the allocator normally writes, and a domain no claim has joined yet:
      // applied by hand they are stored as written and shown.
      apply(up, covered, "computedomain.yaml");
      applySamples(
          up,
          "node.yaml",
          "deviceslice.yaml",
          "nodeallocation.yaml",
          "gangledger.yaml",
          "event.yaml",
          "quotaledger.yaml");
      assertThat(api.get(Kinds.NODE, "gpu-node-1")).isPresent();
      assertThat(api.get(Kinds.DEVICE_SLICE, "gpu-node-1")).isPresent();
      assertThat(api.get(Kinds.NODE_ALLOCATION, "gpu-node-1")).isPresent();
      assertThat(api.get(Kinds.GANG_LEDGER, "gangs")).isPresent();
      assertThat(api.get(Kinds.COMPUTE_DOMAIN, "nvlink-a")).isPresent();
      assertThat(api.get(Kinds.QUOTA_LEDGER, "spare")).isPresent();
      var events = new StringWriter();
      assertThat(up.cli(events, "get", "events", "--for", "node/node-1"))
          .as(events.toString())
          .isZero();
      assertThat(events.toString()).contains("MaintenancePlanned");

      // Two agents share one log: each of their lines names its node.
      var agentLines =
          up.log()
              .lines()
              .filter(l -> l.contains(" TaskSync ") || l.contains(" DurableLedger "))
              .toList();
      assertThat(agentLines)
          .isNotEmpty()
          .allMatch(l -> l.matches(".* (TaskSync|DurableLedger) node=node-[12] .*"));
      assertThat(agentLines)
          .anyMatch(l -> l.contains("node=node-1"))
          .anyMatch(l -> l.contains("node=node-2"));
      assertThat(up.log().lines().filter(l -> l.contains(" ApiServer ")))
          .noneMatch(l -> l.contains("node="));
    }
    try (var files = Files.list(ExamplesTest.REPO.resolve("examples"))) {
      var all =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".yaml"))
              .collect(Collectors.toSet());
      covered.addAll(ELSEWHERE);
      assertThat(covered)
          .as("every example is run by a test")
          .containsExactlyInAnyOrderElementsOf(all);
    }
  }

  private static void apply(UpProcess up, Set<String> covered, String... files) {
    var out = new StringWriter();
    var args =
        Stream.concat(
                Stream.of("apply"), Stream.of(files).flatMap(f -> Stream.of("-f", "examples/" + f)))
            .toArray(String[]::new);
    assertThat(up.cli(out, args)).as(out.toString()).isZero();
    covered.addAll(List.of(files));
  }

  /** docs/api-samples/: objects the system writes, applied by hand to read them back. */
  private static void applySamples(UpProcess up, String... files) {
    var out = new StringWriter();
    var args =
        Stream.concat(
                Stream.of("apply"),
                Stream.of(files).flatMap(f -> Stream.of("-f", "docs/api-samples/" + f)))
            .toArray(String[]::new);
    assertThat(up.cli(out, args)).as(out.toString()).isZero();
  }

  private static void delete(UpProcess up, String kind, String name) {
    var out = new StringWriter();
    assertThat(up.cli(out, "delete", kind, name)).as(out.toString()).isZero();
  }

  private static List<Task> tasksOf(ApiClient api, String workload) {
    return api.list(Kinds.TASK).items().stream()
        .filter(t -> t.metadata().owner().filter(o -> o.name().equals(workload)).isPresent())
        .toList();
  }

  private static boolean allRunning(ApiClient api, String workload, int count) {
    var tasks = tasksOf(api, workload);
    return tasks.size() == count
        && tasks.stream().allMatch(t -> t.status().phase() == TaskPhase.Running);
  }
}
