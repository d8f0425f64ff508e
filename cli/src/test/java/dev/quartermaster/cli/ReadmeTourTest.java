package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's five-minute tour, run as a new user types it against a real {@code qm up}: every
 * {@code ./qm} line of its shell blocks, in order, each checked for what its comment says it
 * prints. The commands are read from the README itself and must be exactly this test's steps, so
 * neither can change without the other. Following commands ({@code -w}, {@code -f}) run in their
 * listing form; shell lines ({@code mv}, {@code pkill}) are done here with the same effect.
 */
@Timeout(480)
class ReadmeTourTest {
  static final Duration BOUND = Duration.ofSeconds(120);

  /** One README line: what it does here and what it must print. */
  @FunctionalInterface
  interface Step {
    void run(UpProcess up) throws Exception;
  }

  @Test
  void everyTourCommandPrintsWhatTheReadmeSays() throws Exception {
    try (var up = UpProcess.start("qmtour")) {
      var steps = steps();
      assertThat(tourCommands())
          .as("the README's tour commands are this test's steps, in order")
          .containsExactlyElementsOf(steps.stream().map(TourStep::command).toList());
      for (var step : steps) {
        try {
          step.step().run(up);
        } catch (AssertionError e) {
          throw new AssertionError("README step `" + step.command() + "`: " + e.getMessage(), e);
        }
      }
      up.passed();
    }
  }

  /**
   * The {@code ./qm} lines of the tour's shell blocks, comments cut, {@code ./qm up} left out (it
   * is the fixture).
   */
  static List<String> tourCommands() throws Exception {
    var readme = Files.readString(ExamplesTest.REPO.resolve("README.md"));
    var tour =
        readme.substring(readme.indexOf("## A five-minute tour"), readme.indexOf("\n## Guides"));
    var commands = new ArrayList<String>();
    boolean inShell = false;
    for (var line : tour.lines().map(String::strip).toList()) {
      if (line.startsWith("```")) {
        inShell = line.equals("```sh");
        continue;
      }
      if (inShell
          && (line.startsWith("./qm ") || line.startsWith("mv ") || line.startsWith("pkill "))) {
        var command = line.replaceAll("\\s+#.*$", "").strip();
        if (!command.equals("./qm up")) {
          commands.add(command);
        }
      }
    }
    return commands;
  }

  /** A README command and what this test does for it. */
  record TourStep(String command, Step step) {}

  /** The tour, in order; a command may come more than once (the state it shows differs). */
  private static List<TourStep> steps() {
    var s = new TourSteps();
    s.put(
        "./qm get nodes",
        up -> {
          var out = qm(up, "get", "nodes");
          assertThat(out).contains("READY").contains("DEVICES").contains("SCHEDULING");
          assertThat(out.lines().filter(l -> l.startsWith("node-")))
              .hasSize(2)
              .allMatch(l -> l.matches("node-[12]\\s+True\\s+Ready\\s+enabled\\s+.*"));
        });
    s.put(
        "./qm apply -f examples/training.yaml",
        up -> {
          assertThat(qm(up, "apply", "-f", "examples/training.yaml"))
              .isEqualTo("workload/training created\n");
          up.await("training's 5 tasks Running", BOUND, () -> running(up, "training") == 5);
        });
    s.put(
        "./qm get tasks -w",
        up -> assertThat(rows(qm(up, "get", "tasks"), "Running")).isEqualTo(5));
    s.put(
        "./qm describe node node-1",
        up ->
            assertThat(qm(up, "describe", "node", "node-1"))
                .contains("HEALTH")
                .contains("HELD BY")
                .contains("claim/training-workers-")
                .contains("Free Channels (counted; --channels lists each):"));
    s.put(
        "./qm describe task training-workers-0",
        up ->
            assertThat(qm(up, "describe", "task", "training-workers-0"))
                .contains("Device Check:  passed (5 device nodes opened)")
                .contains("nvidia-modeset"));
    s.put(
        "./qm logs training-workers-0 -f",
        up -> assertThat(qm(up, "logs", "training-workers-0")).contains("worker up"));
    s.put(
        "mv .qm/nodes/node-2/root/dev/nvidia-uvm .qm/nodes/node-2/uvm-away",
        up -> {
          Files.move(uvm(up), up.data().resolve("nodes/node-2/uvm-away"));
          up.await(
              "node-2 not DevicesReady", BOUND, () -> qm(up, "get", "nodes").contains("missing "));
        });
    s.put(
        "./qm get nodes",
        up ->
            assertThat(qm(up, "get", "nodes"))
                .containsPattern("node-2\\s+True\\s+missing \\S*/node-2/root/dev/nvidia-uvm"));
    var onNode2 = new int[1];
    s.put(
        "./qm scale workload training --group workers --replicas 8",
        up -> {
          onNode2[0] =
              (int)
                  workers(up).stream()
                      .filter(t -> t.spec().node().equals(Optional.of("node-2")))
                      .count();
          assertThat(
                  qm(up, "scale", "workload", "training", "--group", "workers", "--replicas", "8"))
              .isEqualTo("workload/training scaled (group workers: 4 -> 8)\n");
        });
    s.put(
        "./qm get tasks",
        up -> {
          // 8 workers for 8 GPUs, node-2 taking none: those it must take wait.
          int waiting = 4 - onNode2[0];
          up.await(
              waiting + " workers Pending WaitingForAllocation, the rest Running",
              BOUND,
              () -> {
                var out = qm(up, "get", "tasks");
                return out.lines()
                            .filter(
                                l ->
                                    l.matches(
                                        "\\S+\\s+Pending\\s+<none>\\s+WaitingForAllocation\\s+.*"))
                            .count()
                        == waiting
                    && rows(out, "Running") == 9 - waiting;
              });
        });
    s.put(
        "./qm describe task $(./qm get tasks | awk '$2 == \"Pending\" {print $1; exit}')",
        up -> {
          var pending =
              workers(up).stream().filter(t -> t.status().phase() == TaskPhase.Pending).findFirst();
          if (pending.isPresent()) {
            assertThat(qm(up, "describe", "task", pending.get().metadata().name()))
                .contains("no node can take 1 x gpu (class gpu)")
                .contains("node node-1 has 0 free healthy matching device(s)")
                .contains("node node-2 is not DevicesReady: missing");
          }
        });
    s.put(
        "mv .qm/nodes/node-2/uvm-away .qm/nodes/node-2/root/dev/nvidia-uvm",
        up -> {
          Files.move(up.data().resolve("nodes/node-2/uvm-away"), uvm(up));
          up.await("all 8 workers Running", BOUND, () -> running(up, "training") == 9);
        });
    s.put(
        "./qm get tasks -w",
        up -> assertThat(rows(qm(up, "get", "tasks"), "Running")).isEqualTo(9));

    // Volumes.
    s.put(
        "./qm apply -f examples/volumes.yaml",
        up -> {
          assertThat(qm(up, "apply", "-f", "examples/volumes.yaml"))
              .contains("volume/dataset created")
              .contains("workload/scratch created");
          up.await("scratch's 3 tasks Running", BOUND, () -> running(up, "scratch") == 3);
        });
    s.put(
        "./qm get volumes",
        up ->
            assertThat(qm(up, "get", "volumes"))
                .containsPattern("dataset\\s+\\S+\\s+1Gi\\s+MultiNodeReaderOnly\\s+3/0\\s+InUse")
                .containsPattern("scratch-workers-0-scratch\\s+.*0/1\\s+InUse"));
    s.put(
        "./qm logs scratch-workers-0",
        up -> assertThat(qm(up, "logs", "scratch-workers-0")).contains("written at "));
    var replaced = new String[1];
    s.put(
        "./qm delete task scratch-workers-0",
        up -> {
          var uid = up.api().get(Kinds.TASK, "scratch-workers-0").orElseThrow().metadata().uid();
          assertThat(qm(up, "delete", "task", "scratch-workers-0"))
              .startsWith("task/scratch-workers-0 ");
          up.await(
              "scratch-workers-0 replaced and Running",
              BOUND,
              () ->
                  up.api()
                      .get(Kinds.TASK, "scratch-workers-0")
                      .filter(
                          t ->
                              !t.metadata().uid().equals(uid)
                                  && t.status().phase() == TaskPhase.Running)
                      .isPresent());
          replaced[0] = uid;
        });
    s.put(
        "./qm logs scratch-workers-0",
        up ->
            up.await(
                "the file written before survived",
                BOUND,
                () ->
                    qm(up, "logs", "scratch-workers-0")
                            .lines()
                            .filter(l -> l.startsWith("written at "))
                            .count()
                        == 2));
    s.put(
        "./qm delete workload scratch",
        up -> {
          assertThat(qm(up, "delete", "workload", "scratch")).startsWith("workload/scratch ");
          up.await(
              "the scratch volumes deleted",
              BOUND,
              () -> up.api().list(Kinds.VOLUME).items().size() == 1);
        });
    s.put(
        "./qm get volumes",
        up ->
            assertThat(qm(up, "get", "volumes"))
                .containsPattern(
                    "dataset\\s+\\S+\\s+1Gi\\s+MultiNodeReaderOnly\\s+0/0\\s+Available"));

    // Compute domains: the job takes all 8 GPUs, so the training workload goes first, as the README
    // says.
    s.put(
        "./qm apply -f examples/domain-job.yaml",
        up -> {
          qm(up, "delete", "workload", "training");
          up.await("training's tasks gone", BOUND, () -> tasksOf(up, "training").isEmpty());
          assertThat(qm(up, "apply", "-f", "examples/domain-job.yaml"))
              .contains("computedomain/nvlink-job created");
          up.await(
              "the domain job's 2 workers Running", BOUND, () -> running(up, "domain-job") == 2);
        });
    s.put(
        "./qm get computedomains",
        up ->
            up.await(
                "nvlink-job 2/2 Ready",
                BOUND,
                () ->
                    qm(up, "get", "computedomains")
                        .lines()
                        .anyMatch(l -> l.matches("nvlink-job\\s+2/2\\s+Ready\\s+2\\s+.*"))));
    s.put(
        "./qm describe computedomain nvlink-job",
        up ->
            assertThat(qm(up, "describe", "computedomain", "nvlink-job"))
                .containsPattern("node-1\\s+True\\s+Ready\\s+\\d+\\s+0")
                .containsPattern("node-2\\s+True\\s+Ready\\s+\\d+\\s+0"));
    s.put(
        "pkill -9 -f 'domain-daemon --domain nvlink-job --node node-1'",
        up -> {
          // The process pkill -f finds, found by the pid node-1's agent reports (a JVM's long
          // command
          // line is not always readable through ProcessHandle).
          var pid =
              up.api()
                  .get(Kinds.NODE, "node-1")
                  .orElseThrow()
                  .status()
                  .daemonOf("nvlink-job")
                  .flatMap(d -> d.pid())
                  .orElseThrow();
          assertThat(Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' '))
              .contains("domain-daemon --domain nvlink-job --node node-1");
          ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        });
    s.put(
        "./qm describe computedomain nvlink-job",
        up ->
            up.await(
                "node-1's daemon started again, RESTARTS 1",
                BOUND,
                () ->
                    qm(up, "describe", "computedomain", "nvlink-job")
                        .lines()
                        .anyMatch(
                            l -> l.matches("\\s*node-1\\s+True\\s+Ready\\s+\\d+\\s+1\\s+.*"))));
    s.put(
        "./qm delete computedomain nvlink-job",
        up ->
            assertThat(qm(up, "delete", "computedomain", "nvlink-job"))
                .startsWith(
                    "computedomain/nvlink-job marked for deletion (waiting for finalizers: ")
                .contains("in-use"));
    s.put(
        "./qm delete workload domain-job",
        up -> {
          assertThat(qm(up, "delete", "workload", "domain-job")).startsWith("workload/domain-job ");
          up.await(
              "the domain gone with its last claim",
              BOUND,
              () -> up.api().get(Kinds.COMPUTE_DOMAIN, "nvlink-job").isEmpty());
        });

    // Events.
    s.put(
        "./qm get events",
        up ->
            assertThat(qm(up, "get", "events").lines().findFirst().orElse(""))
                .matches("LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+COUNT\\s+MESSAGE"));
    s.put(
        "./qm get events --for task/training-workers-7",
        up -> {
          var out = qm(up, "get", "events", "--for", "task/training-workers-7");
          if (out.contains("WaitingForAllocation")) {
            assertThat(out).contains("Warning").contains("node node-2 is not DevicesReady");
          }
        });
    s.put(
        "./qm get events --for node/node-2",
        up ->
            assertThat(qm(up, "get", "events", "--for", "node/node-2"))
                .containsPattern("Warning\\s+DevicesNotReady")
                .contains("nvidia-uvm")
                .containsPattern("Normal\\s+DevicesReady"));
    s.put("./qm get events -w", up -> assertThat(qm(up, "get", "events")).contains("Scheduled"));

    // Drain: with the training workload running again, as the README's output shows.
    s.put(
        "./qm node drain node-1",
        up -> {
          qm(up, "apply", "-f", "examples/training.yaml");
          up.await("training's 5 tasks Running", BOUND, () -> running(up, "training") == 5);
          var out = qm(up, "node", "drain", "node-1");
          assertThat(out)
              .contains("node/node-1 cordoned and draining")
              .contains("node/node-1 drained in ")
              .contains("it stays cordoned");
        });
    s.put(
        "./qm get nodes",
        up ->
            assertThat(qm(up, "get", "nodes"))
                .containsPattern("node-1\\s+True\\s+Ready\\s+cordoned"));
    s.put(
        "./qm node uncordon node-1",
        up ->
            assertThat(qm(up, "node", "uncordon", "node-1")).isEqualTo("node/node-1 uncordoned\n"));
    return s.steps;
  }

  private static final class TourSteps {
    final List<TourStep> steps = new ArrayList<>();

    void put(String command, Step step) {
      steps.add(new TourStep(command, step));
    }
  }

  private static String qm(UpProcess up, String... args) {
    var out = new StringWriter();
    int exit = up.cli(out, args);
    assertThat(exit).as("qm " + String.join(" ", args) + " exit; it printed:\n" + out).isZero();
    return out.toString();
  }

  private static long rows(String table, String phase) {
    return table.lines().filter(l -> l.matches("\\S+\\s+" + phase + "\\s+.*")).count();
  }

  private static Path uvm(UpProcess up) {
    return up.data().resolve("nodes/node-2/root/dev/nvidia-uvm");
  }

  private static List<Task> tasksOf(UpProcess up, String workload) {
    return up.api().list(Kinds.TASK).items().stream()
        .filter(t -> t.metadata().owner().filter(o -> o.name().equals(workload)).isPresent())
        .toList();
  }

  private static List<Task> workers(UpProcess up) {
    return tasksOf(up, "training").stream()
        .filter(t -> t.metadata().name().startsWith("training-workers-"))
        .toList();
  }

  private static long running(UpProcess up, String workload) {
    return tasksOf(up, workload).stream()
        .filter(t -> t.status().phase() == TaskPhase.Running)
        .count();
  }
}
