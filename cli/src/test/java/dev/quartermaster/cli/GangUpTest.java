package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's gang section, run as a user types it against real {@code qm up} processes: every
 * command of its shell blocks, in order, checked for what its comment says it prints (the commands
 * are read from the README and must be exactly this test's steps). Two gangs of 3 × 2 GPUs on a
 * default {@code qm up}'s 8: the second waits holding no GPU, says why, and is placed once the
 * first is deleted. Then {@code qm up --nodes 4 --topology racks=2,cliques=4} labels its nodes, and
 * a layout that cannot be is refused before anything starts.
 */
@Timeout(400)
class GangUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final String SECTION = "## Gangs: jobs placed whole";

  @Test
  void twoGangsThatDoNotFitTogetherOneRunsTheOtherWaitsHoldingNothingThenRuns() throws Exception {
    var commands = ReadmeSection.of(SECTION).commands();
    var expected = new ArrayList<String>();
    try (var up = UpProcess.start("qmg")) {
      expected.add("./qm apply -f examples/gang-job.yaml");
      assertThat(qm(up, "apply", "-f", "examples/gang-job.yaml"))
          .isEqualTo("workload/gang-a created\n");

      expected.add("./qm get workloads");
      up.await(
          "gang-a workers 3/3",
          BOUND,
          () -> qm(up, "get", "workloads").matches("(?s).*\ngang-a\\s+workers 3/3\\s+\\S+\n.*"));

      expected.add("sed 's/gang-a/gang-b/' examples/gang-job.yaml | ./qm apply -f -");
      var second =
          Files.readString(ExamplesTest.REPO.resolve("examples/gang-job.yaml"))
              .replace("gang-a", "gang-b");
      var out = new StringWriter();
      assertThat(up.cliWithInput(out, second, "apply", "-f", "-")).as(out.toString()).isZero();
      assertThat(out.toString()).isEqualTo("workload/gang-b created\n");

      expected.add("./qm get workloads");
      up.await(
          "gang-b workers 0/3 gang waiting, its three workers made",
          BOUND,
          () ->
              qm(up, "get", "workloads")
                      .matches("(?s).*\ngang-b\\s+workers 0/3 gang waiting\\s+\\S+\n.*")
                  // The gang's status line, not the GangWaiting event, which the allocator writes
                  // before the workload controller's next status.
                  && java.util.regex.Pattern.compile(
                          "Message:\\s+gang gang-b/workers needs .*at most 1 fit now")
                      .matcher(qm(up, "describe", "workload", "gang-b"))
                      .find());
      assertThat(qm(up, "get", "workloads")).containsPattern("gang-a\\s+workers 3/3\\s");

      expected.add("./qm describe workload gang-b");
      assertThat(qm(up, "describe", "workload", "gang-b"))
          .containsPattern("Gangs:\n  workers:\n    State:\\s+Waiting for \\S+\n")
          .containsPattern("Min Member:\\s+3 of 3 replicas\n")
          .containsPattern("On Member Failure:\\s+RestartGang\n")
          .containsPattern("Topology:\\s+anywhere\n")
          .containsPattern("Reason:\\s+WaitingForGang\n")
          .containsPattern(
              "Message:\\s+gang gang-b/workers needs 3 × \\(2 gpu\\) at once; at most 1 fit now;"
                  + " it holds nothing while it waits; nothing is reserved for it: a job without"
                  + " activeDeadlineSeconds holds devices it needs");

      expected.add("./qm get claims");
      assertThat(qm(up, "get", "claims"))
          .containsPattern("gang-b-workers-0-gpus\\s+pending\\s+<none>\\s+<none>")
          .containsPattern("gang-b-workers-1-gpus\\s+pending\\s+<none>\\s+<none>")
          .containsPattern("gang-b-workers-2-gpus\\s+pending\\s+<none>\\s+<none>");
      // Holding nothing: no claim of it allocated, no task of it pinned, though 2 GPUs are free.
      assertThat(claimsOf(up, "gang-b"))
          .hasSize(3)
          .allMatch(c -> c.status().allocation().isEmpty());
      assertThat(tasksOf(up, "gang-b")).hasSize(3).allMatch(t -> t.spec().node().isEmpty());

      expected.add("./qm get events --for workload/gang-b");
      // Events reach the store in the controllers' next flush (a second at most), not with the
      // claims' conditions.
      up.await(
          "gang-b's GangWaiting event",
          BOUND,
          () ->
              java.util.regex.Pattern.compile(
                      "Warning\\s+GangWaiting\\s+workload/gang-b\\s+\\d+\\s+gang gang-b/workers"
                          + " needs 3 × \\(2 gpu\\) at once; ")
                  .matcher(qm(up, "get", "events", "--for", "workload/gang-b"))
                  .find());

      expected.add("./qm delete workload gang-a");
      assertThat(qm(up, "delete", "workload", "gang-a"))
          .isEqualTo(
              "workload/gang-a marked for deletion (waiting for finalizers:"
                  + " quartermaster.dev/tasks)\n");

      expected.add("./qm get workloads");
      up.await(
          "gang-b workers 3/3, all Running",
          BOUND,
          () ->
              qm(up, "get", "workloads").matches("(?s).*\ngang-b\\s+workers 3/3\\s+\\S+\n.*")
                  && tasksOf(up, "gang-b").stream()
                      .allMatch(t -> t.status().phase() == TaskPhase.Running));

      expected.add("./qm get events --for workload/gang-b");
      up.await(
          "gang-b's GangPlaced event",
          BOUND,
          () ->
              java.util.regex.Pattern.compile(
                      "Normal\\s+GangPlaced\\s+workload/gang-b\\s+1\\s+gang gang-b/workers: 3"
                          + " members placed in one decision on 2 node\\(s\\): node-1,node-2")
                  .matcher(qm(up, "get", "events", "--for", "workload/gang-b"))
                  .find());

      expected.add("./qm up --nodes 4 --topology racks=2,cliques=4");
      expected.add("./qm get nodes -l topology.quartermaster.dev/rack=rack-2");
      expected.add("./qm up --topology racks=3");
      assertThat(commands)
          .as("the README's gang commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);

      var refused = new StringWriter();
      assertThat(up.cli(refused, "up", "--topology", "racks=3")).isEqualTo(1);
      assertThat(refused.toString())
          .startsWith(
              "error: --topology: racks=3: must be between 1 and the number of nodes (2): ");
      up.passed();
    }
    try (var up = UpProcess.start("qmt", "--nodes", "4", "--topology", "racks=2,cliques=4")) {
      // The banner's node lines come after the token line UpProcess.start waits for.
      var nodeLine =
          java.util.regex.Pattern.compile(
              "Node\\s+node-3: 4 simulated GPUs .*; rack-2, clique-3\n");
      up.await("the banner's line of node-3", BOUND, () -> nodeLine.matcher(up.log()).find());
      assertThat(
              qm(up, "get", "nodes", "-l", TopologyKeys.RACK + "=rack-2")
                  .lines()
                  .skip(1)
                  .map(l -> l.split("\\s+")[0]))
          .containsExactly("node-3", "node-4");
      assertThat(up.api().get(Kinds.NODE, "node-2").orElseThrow().metadata().labels())
          .containsEntry(TopologyKeys.RACK, "rack-1")
          .containsEntry(TopologyKeys.NVLINK_CLIQUE, "clique-2")
          .doesNotContainKey(TopologyKeys.ZONE);
      up.passed();
    }
  }

  private static String qm(UpProcess up, String... args) {
    var out = new StringWriter();
    int exit = up.cli(out, args);
    assertThat(exit).as("qm " + String.join(" ", args) + " exit; it printed:\n" + out).isZero();
    return out.toString();
  }

  private static List<Task> tasksOf(UpProcess up, String workload) {
    return up.api().list(Kinds.TASK).items().stream()
        .filter(t -> t.metadata().owner().filter(o -> o.name().equals(workload)).isPresent())
        .toList();
  }

  private static List<ResourceClaim> claimsOf(UpProcess up, String workload) {
    return up.api().list(Kinds.RESOURCE_CLAIM).items().stream()
        .filter(c -> c.metadata().name().startsWith(workload + "-"))
        .toList();
  }
}
