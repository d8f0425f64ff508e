package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's preemption section, run as a user types it against a real {@code qm up}: research's
 * backfill sweep runs on borrowed GPUs; production's urgent job reclaims them; the sweep is evicted
 * whole (at no moment does part of it run while the rest has gone: all four stop before the urgent
 * job is admitted), says by whom, and waits in its queue again; the urgent job runs.
 */
@Timeout(400)
class TeamsUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final String SECTION = "## Preemption: the lender takes its quota back";

  @Test
  void anUrgentJobReclaimsWhatTheBackfillBorrowedAndTheBackfillWaitsAgainWhole() throws Exception {
    var section = ReadmeSection.of(SECTION);
    var expected = new ArrayList<String>();
    try (var up = UpProcess.start("qmt")) {
      expected.add("./qm apply -f examples/teams.yaml");
      assertThat(qm(up, "apply", "-f", "examples/teams.yaml"))
          .isEqualTo(
              "priorityclass/backfill created\npriorityclass/deadline created\nqueue/research"
                  + " created\nqueue/production created\nworkload/sweep created\n");

      expected.add("./qm get queues");
      up.await(
          "research: the sweep admitted on 8 GPUs, 6 borrowed; its 4 workers Running",
          BOUND,
          () ->
              qm(up, "get", "queues")
                      .matches(
                          "(?s).*\nresearch\\s+org\\s+gpu=2\\s+gpu=8\\s+gpu=6\\s+0\\s+0\\s+1\\s.*")
                  && running(up, "sweep") == 4);

      expected.add("./qm apply -f examples/teams-urgent.yaml");
      assertThat(qm(up, "apply", "-f", "examples/teams-urgent.yaml"))
          .isEqualTo("workload/release created\n");

      expected.add("./qm get events --for workload/sweep");
      up.await(
          "a Reclaimed event on the sweep naming release",
          BOUND,
          () ->
              qm(up, "get", "events", "--for", "workload/sweep")
                  .matches(
                      "(?s).*Warning\\s+Reclaimed\\s+.*reclaimed: queue production takes back the"
                          + " quota queue research borrowed, for release.*"));

      expected.add("./qm get workloads");
      up.await(
          "release's 2 workers Running; no task of the sweep left",
          BOUND,
          () -> {
            // The release is admitted only once every task of the sweep is gone.
            if (!tasksOf(up, "release").isEmpty()) {
              assertThat(tasksOf(up, "sweep")).as("the sweep went whole before release").isEmpty();
            }
            return running(up, "release") == 2 && tasksOf(up, "sweep").isEmpty();
          });
      assertThat(qm(up, "get", "workloads")).containsPattern("\nrelease\\s+workers 2/2\\s");

      expected.add("./qm describe workload sweep");
      up.await(
          "the sweep pending in research again",
          BOUND,
          () ->
              qm(up, "describe", "workload", "sweep")
                  .matches("(?s).*Admission:\n  State: +Pending\n  Queue: +research\n.*"));
      assertThat(qm(up, "describe", "workload", "sweep")).contains("needs gpu 8");

      assertThat(section.commands())
          .as("the README's preemption commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);
      up.passed();
    }
  }

  private static long running(UpProcess up, String workload) {
    return tasksOf(up, workload).stream()
        .filter(t -> t.status().phase() == TaskPhase.Running && !t.metadata().isDeleting())
        .count();
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
}
