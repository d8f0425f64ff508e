package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.NodeAgentConfig;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.workload.TaskPhase;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "with real processes" test, as a user would run it: {@code qm up --nodes 2} in a
 * child JVM (store, API, controllers, two node agents, each with the built-in hostpath CSI plugin
 * on a Unix socket), then {@code qm apply -f examples/volumes.yaml} against it. The three scratch
 * workers must run with the shared dataset read-only and their own scratch volume written; a
 * deleted worker comes back under its name and finds its slot's file again; deleting the workload
 * releases every claim and deletes the scratch volumes (volumeRetention: Delete), directories
 * included, and keeps the dataset.
 */
@Timeout(300)
class VolumesUpTest {
  static final Duration BOUND = Duration.ofSeconds(90);
  static final String WORKLOAD = "scratch";
  static final List<String> TASKS =
      List.of("scratch-workers-0", "scratch-workers-1", "scratch-workers-2");

  @Test
  void upAppliesTheVolumesExampleAndItsVolumesFollowTheWorkers() throws Exception {
    var t0 = Instant.now();
    try (var up = UpProcess.start("qmu", "--nodes", "2")) {
      var api = up.api();
      var data = up.data();
      var volumesDir = data.resolve("csi").resolve("hostpath").resolve("volumes");
      phase("up", t0);

      // The user's next step, as the banner says, through the config file qm up wrote.
      var t1 = Instant.now();
      var out = new StringWriter();
      assertThat(Path.of("..", "examples", "volumes.yaml")).exists();
      assertThat(up.cli(out, "apply", "-f", "examples/volumes.yaml")).as(out.toString()).isZero();
      assertThat(out.toString().lines().toList())
          .as(out.toString())
          .hasSize(2)
          .allMatch(l -> l.endsWith(" created"));

      // 1. Every worker running, each with the dataset read and its own scratch volume written.
      var c = api;
      up.await(
          "3 workers Running, dataset read by 3, each scratch volume written on its task's node, hello.txt with one line",
          BOUND,
          () -> {
            var tasks = TASKS.stream().map(n -> c.get(Kinds.TASK, n)).toList();
            if (!tasks.stream()
                .allMatch(t -> t.isPresent() && t.get().status().phase() == TaskPhase.Running)) {
              return false;
            }
            var dataset = c.get(Kinds.VOLUME, "dataset").orElseThrow();
            var reads = dataset.status().claims();
            if (reads.size() != 3
                || !reads.stream()
                    .allMatch(
                        r ->
                            r.mode() == VolumeClaim.Mode.Read
                                && r.attached()
                                && r.state() == VolumeClaim.State.Taken)) {
              return false;
            }
            for (var t : tasks) {
              var task = t.get();
              var v = c.get(Kinds.VOLUME, task.metadata().name() + "-scratch");
              if (v.isEmpty()) {
                return false;
              }
              var claims = v.get().status().claims();
              if (claims.size() != 1) {
                return false;
              }
              var w = claims.getFirst();
              if (w.mode() != VolumeClaim.Mode.Write
                  || !w.attached()
                  || w.state() != VolumeClaim.State.Taken
                  || !w.heldBy(task.metadata().name(), task.metadata().uid())
                  || !w.node().equals(task.status().node().orElse(""))) {
                return false;
              }
              if (lines(helloOf(volumesDir, v.get())).size() != 1) {
                return false;
              }
            }
            return true;
          });
      var nodes =
          TASKS.stream()
              .map(n -> c.get(Kinds.TASK, n).orElseThrow().status().node().orElseThrow())
              .toList();
      System.out.println("workers on " + nodes);
      phase("apply -> 3 workers running with their volumes", t1);

      // 2. A deleted worker comes back under its name and finds its slot's file again.
      var t2 = Instant.now();
      var victim = TASKS.get(1);
      var old = api.get(Kinds.TASK, victim).orElseThrow();
      var scratch1 = api.get(Kinds.VOLUME, victim + "-scratch").orElseThrow();
      api.delete(Kinds.TASK, victim);
      up.await(
          victim
              + " replaced (new uid) and Running, its scratch claim attached for the new uid, hello.txt with two lines",
          BOUND,
          () -> {
            var t = c.get(Kinds.TASK, victim);
            if (t.isEmpty()
                || t.get().metadata().uid().equals(old.metadata().uid())
                || t.get().status().phase() != TaskPhase.Running) {
              return false;
            }
            var claims = c.get(Kinds.VOLUME, victim + "-scratch").orElseThrow().status().claims();
            return claims.size() == 1
                && claims.getFirst().attached()
                && claims.getFirst().heldBy(victim, t.get().metadata().uid())
                && lines(helloOf(volumesDir, scratch1)).size() == 2;
          });
      var node = api.get(Kinds.TASK, victim).orElseThrow().status().node().orElseThrow();
      var taskLog =
          NodeAgentConfig.taskLog(data.resolve("nodes").resolve(node).resolve("state"), victim);
      up.await(
          victim + "'s log shows both lines",
          BOUND,
          () -> read(taskLog).lines().filter(l -> l.startsWith("written at ")).count() == 2);
      assertThat(lines(helloOf(volumesDir, scratch1)))
          .hasSize(2)
          .allMatch(l -> l.startsWith("written at "));
      phase("worker deleted -> replaced, sees its file again (on " + node + ")", t2);

      // 3. The workload deleted: no task, no claim, the scratch volumes and their directories gone.
      var t3 = Instant.now();
      var scratchDirs =
          TASKS.stream()
              .map(
                  n ->
                      volumesDir.resolve(
                          c.get(Kinds.VOLUME, n + "-scratch").orElseThrow().status().externalId()))
              .toList();
      var datasetDir =
          volumesDir.resolve(api.get(Kinds.VOLUME, "dataset").orElseThrow().status().externalId());
      api.delete(Kinds.WORKLOAD, WORKLOAD);
      up.await(
          "workload deleted: no tasks, no claims, scratch volumes and directories gone, dataset kept",
          BOUND,
          () -> {
            if (c.get(Kinds.WORKLOAD, WORKLOAD).isPresent()
                || TASKS.stream().anyMatch(n -> c.get(Kinds.TASK, n).isPresent())) {
              return false;
            }
            var volumes = c.list(Kinds.VOLUME).items();
            if (!volumes.stream()
                .map(v -> v.metadata().name())
                .toList()
                .equals(List.of("dataset"))) {
              return false;
            }
            return volumes.getFirst().status().claims().isEmpty()
                && scratchDirs.stream().noneMatch(Files::exists);
          });
      assertThat(datasetDir).isDirectory();
      assertThat(listDir(volumesDir)).containsExactly(datasetDir);
      phase("workload deleted -> claims released, scratch volumes deleted", t3);

      // 4. Stopped as a user would (SIGTERM, as Ctrl-C): it exits.
      var t4 = Instant.now();
      int exit = up.stop();
      assertThat(exit).as("qm up exits after SIGTERM").isNotEqualTo(-1);
      phase("stopped (exit " + exit + ")", t4);
      up.passed();
    }
  }

  private static void phase(String what, Instant since) {
    System.out.printf(
        "phase %-60s %6.1f s%n", what, Duration.between(since, Instant.now()).toMillis() / 1000.0);
  }

  private static Path helloOf(Path volumesDir, Volume v) {
    return volumesDir.resolve(v.status().externalId()).resolve("hello.txt");
  }

  private static List<String> lines(Path file) {
    return read(file).lines().filter(l -> !l.isBlank()).toList();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static List<Path> listDir(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }
}
