package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 43, items 1 and 2, as the report tried them on a real {@code qm up}: {@code kill -STOP} for
 * 13 s (past the 10 s renew deadline, within the 15 s lease) and {@code kill -CONT}; a second job
 * applied afterwards runs, the log and an event say the term ended and the controllers restarted,
 * and {@code /readyz} answers 200. Then {@code kill -9} and a new {@code qm up} on the same data:
 * it takes the dead process's lease at once (the file lock proves it is gone) instead of waiting
 * for the lease to run out.
 */
@Timeout(400)
class PausedUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);

  /** How long the process stays stopped: the fault itself, not a wait for anything. */
  static final Duration PAUSE = Duration.ofSeconds(13);

  @Test
  void aPausedQmUpSchedulesAgainAndAKilledOneIsTakenOverAtOnce() throws Exception {
    var up = UpProcess.start("qmp");
    var next = new java.util.ArrayList<UpProcess>();
    try {
      qm(up, "apply", "-f", "examples/training.yaml");
      up.await("training's five tasks Running", BOUND, () -> running(up, "training") == 5);
      assertThat(get(up, "/readyz")).startsWith("200 ok: the controllers lead: epoch 1");

      up.signal("STOP");
      Thread.sleep(PAUSE.toMillis());
      up.signal("CONT");

      qmWith(up, second(), "apply", "-f", "-");
      up.await(
          "the second job's five tasks Running after the pause",
          BOUND,
          () -> running(up, "training-2") == 5);
      assertThat(up.log())
          .contains("the term of epoch 1 ended: no lease renewal for")
          .contains("the controllers restart under epoch 2");
      up.await(
          "a TermEnded event about controlplane/controllers",
          BOUND,
          () -> qm(up, "get", "events", "--for", "controlplane/controllers").contains("TermEnded"));
      assertThat(get(up, "/readyz")).startsWith("200 ok: the controllers lead: epoch 2");
      assertThat(get(up, "/metrics"))
          .contains("qm_controllers_writable 1.0")
          .contains("qm_controllers_leader 1.0");

      var again = up.killAndStartAgain();
      next.add(again);
      again.await(
          "the new process leads",
          BOUND,
          () -> again.log().contains("at once: the store is this process's alone"));
      assertThat(again.log())
          .containsPattern("taking the lease from qm-\\d+ at once")
          .containsPattern("leading \\(epoch 3\\)");
      again.passed();
    } finally {
      for (var n : next) {
        n.close();
      }
      up.close();
    }
  }

  private static String second() throws Exception {
    return Files.readString(ExamplesTest.REPO.resolve("examples/training.yaml"))
        .replace("name: training\n", "name: training-2\n");
  }

  private static String get(UpProcess up, String path) throws Exception {
    try (var http = HttpClient.newHttpClient()) {
      var response =
          http.send(
              HttpRequest.newBuilder(URI.create(up.uri() + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    }
  }

  private static long running(UpProcess up, String workload) {
    List<Task> tasks =
        up.api().list(Kinds.TASK).items().stream()
            .filter(t -> t.metadata().owner().filter(o -> o.name().equals(workload)).isPresent())
            .toList();
    return tasks.stream().filter(t -> t.status().phase() == TaskPhase.Running).count();
  }

  private static String qm(UpProcess up, String... args) {
    return qmWith(up, "", args);
  }

  private static String qmWith(UpProcess up, String input, String... args) {
    var out = new StringWriter();
    int exit = up.cliWithInput(out, input, args);
    assertThat(exit).as("qm " + String.join(" ", args) + " exit; it printed:\n" + out).isZero();
    return out.toString();
  }
}
