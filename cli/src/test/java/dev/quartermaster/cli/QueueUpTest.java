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
 * The README's queue section, run as a user types it against a real {@code qm up}: every command of
 * its shell block, in order, checked for what its comment says, and what {@code qm get queues} and
 * {@code qm describe workload tune-b} print compared with the section's text blocks (ages, uids,
 * revisions and times masked, runs of spaces as one). team-b's first job is admitted and runs; its
 * second waits for quota, says why, holds nothing, and is admitted once the first is deleted.
 */
@Timeout(400)
class QueueUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final String SECTION = "## Queues: teams share the fleet";

  @Test
  void theSecondJobOfATeamWaitsForQuotaSaysWhyAndIsAdmittedWhenTheFirstGoes() throws Exception {
    var section = ReadmeSection.of(SECTION);
    var printed = section.blocks("text");
    assertThat(printed).as("the section's outputs: get queues, describe workload").hasSize(2);
    var expected = new ArrayList<String>();
    try (var up = UpProcess.start("qmq")) {
      expected.add("./qm apply -f examples/queues.yaml");
      assertThat(qm(up, "apply", "-f", "examples/queues.yaml"))
          .isEqualTo("priorityclass/urgent created\nqueue/team-a created\nqueue/team-b created\n");

      expected.add("./qm apply -f examples/queued-jobs.yaml");
      assertThat(qm(up, "apply", "-f", "examples/queued-jobs.yaml"))
          .isEqualTo("workload/train-b created\nworkload/tune-b created\n");

      expected.add("./qm get queues");
      up.await(
          "team-b: 1 admitted, 1 pending; train-b's workers Running",
          BOUND,
          () ->
              qm(up, "get", "queues")
                      .matches("(?s).*\nteam-b\\s+lab\\s+gpu=4\\s+gpu=4\\s+0\\s+0\\s+1\\s+1\\s.*")
                  && tasksOf(up, "train-b").size() == 2
                  && tasksOf(up, "train-b").stream()
                      .allMatch(t -> t.status().phase() == TaskPhase.Running));
      var queues = qm(up, "get", "queues");
      assertThat(masked(queues))
          .as("qm get queues printed:\n" + queues)
          .isEqualTo(masked(printed.get(0)));

      expected.add("./qm describe workload tune-b");
      var described = qm(up, "describe", "workload", "tune-b");
      assertThat(masked(described))
          .as("qm describe workload tune-b printed:\n" + described)
          .isEqualTo(masked(printed.get(1)));
      assertThat(tasksOf(up, "tune-b")).as("a waiting workload has no task").isEmpty();

      expected.add("./qm describe queue team-b");
      assertThat(qm(up, "describe", "queue", "team-b"))
          .containsPattern("\n  1 +tune-b +gpu=4 +0 +\\S+ +needs gpu 4: quota gpu 4/4 used;");

      expected.add("./qm delete workload train-b");
      assertThat(qm(up, "delete", "workload", "train-b"))
          .startsWith("workload/train-b marked for deletion");

      expected.add("./qm get workloads");
      up.await(
          "tune-b admitted, its two workers Running",
          BOUND,
          () ->
              qm(up, "get", "workloads").matches("(?s).*\ntune-b\\s+workers 2/2\\s.*")
                  && tasksOf(up, "tune-b").stream()
                          .filter(t -> t.status().phase() == TaskPhase.Running)
                          .count()
                      == 2);
      assertThat(qm(up, "describe", "workload", "tune-b"))
          .containsPattern(
              "Admission:\n  State: +Admitted \\S+ ago\n  Queue: +team-b \\(cohort lab\\)\n");

      assertThat(section.commands())
          .as("the README's queue commands are this test's steps, in order")
          .containsExactlyElementsOf(expected);

      // delete -f of a file that lists the queue before the workload it admits: the workload goes
      // first, and the queue once the workload's admission is released (the naive order stopped
      // at the queue's refusal and never reached the workload).
      var file = java.nio.file.Files.createTempFile("queue-first", ".yaml");
      java.nio.file.Files.writeString(
          file,
          """
          kind: Queue
          metadata: {name: team-b}
          spec: {cohort: lab, quota: {gpu: 4}}
          ---
          kind: Workload
          metadata: {name: tune-b}
          spec:
            queue: team-b
            groups:
              - name: workers
                replicas: 2
                template: {command: [sleep, "86400"]}
          """);
      var deleted = qm(up, "delete", "-f", file.toString());
      assertThat(deleted)
          .startsWith("workload/tune-b marked for deletion")
          .contains("queue/team-b deleted");
      assertThat(deleted.indexOf("workload/tune-b")).isLessThan(deleted.indexOf("queue/team-b"));
      up.passed();
    }
  }

  /**
   * What does not repeat from run to run masked: uids, revisions, times and ages; and runs of
   * spaces made one, as a column's width follows its longest age.
   */
  static String masked(String printed) {
    return printed
        .replaceAll("(?m)^UID:.*$", "UID: <uid>")
        .replaceAll("(?m)^Revision:.*$", "Revision: <revision>")
        .replaceAll("(?m)^Created:.*$", "Created: <time>")
        .replaceAll("\\b\\d+[smhd](\\d+[smh])?\\b", "<age>")
        .replaceAll(" +", " ")
        .strip();
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
