package dev.quartermaster.agent.host;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.runtime.DeviceCheck;
import dev.quartermaster.agent.runtime.ProcessTree;
import dev.quartermaster.agent.runtime.TaskHandle;
import dev.quartermaster.agent.runtime.TaskResult;
import dev.quartermaster.agent.runtime.TaskState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The next agent finds, from the one run-record file, exactly the processes an earlier agent
 * started and did not see end, and stops them (I1, I2: a process nobody follows must not keep a
 * GPU); the file stays small however many tasks come and go.
 */
class FileRunRecordsTest {
  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(Process::destroyForcibly);
  }

  private TaskHandle sleeping(String name) throws Exception {
    var process = new ProcessBuilder("sleep", "300").start();
    started.add(process);
    return handle(name, Optional.of(process.toHandle()));
  }

  private static TaskHandle handle(String name, Optional<ProcessHandle> process) {
    return new TaskHandle() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public TaskState state() {
        return new TaskState.Starting();
      }

      @Override
      public Path output() {
        return Path.of("/dev/null");
      }

      @Override
      public CompletableFuture<DeviceCheck> deviceCheck() {
        return new CompletableFuture<>();
      }

      @Override
      public CompletableFuture<TaskResult> result() {
        return new CompletableFuture<>();
      }

      @Override
      public Optional<ProcessHandle> process() {
        return process;
      }

      @Override
      public void kill(ProcessTree tree) {}
    };
  }

  @Test
  void aRestartedAgentStopsTheProcessesAnEarlierOneStartedAndDidNotSeeEnd() throws Exception {
    var earlier = new FileRunRecords(dir, List.of("podman"));
    var a = sleeping("train-w-0");
    var b = sleeping("train-w-1");
    earlier.started("train-w-0", "uid-a", a);
    earlier.started("train-w-1", "uid-b", b);
    earlier.started("noop-0", "uid-c", handle("noop-0", Optional.empty()));
    earlier.remove("train-w-1"); // its end was seen: it is not the next agent's to stop
    started.get(1).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    // The earlier agent dies here (SIGKILL): nothing more is written.

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    assertThat(leftovers).containsOnlyKeys("train-w-0", "noop-0");
    assertThat(leftovers.get("train-w-0").uid()).isEqualTo("uid-a");
    assertThat(leftovers.get("train-w-0").found())
        .isEqualTo(
            "its process " + a.process().orElseThrow().pid() + " was still running and was killed");
    assertThat(leftovers.get("noop-0").found()).isEqualTo("no process was recorded");
    assertThat(ProcessTree.running(started.get(0).toHandle()))
        .isFalse(); // gone, or a zombie: it holds nothing
    // Every record is forgotten: a third agent finds nothing.
    assertThat(new FileRunRecords(dir, List.of("podman")).stopAll()).isEmpty();
  }

  /**
   * A task's first process ended while no agent ran, leaving a child behind with the task's output
   * (and devices) — as a shell's {@code sleep} outlived it in the partitions bench. The record's
   * process is gone, but what still writes to the task's output is the task's, and is killed.
   */
  @Test
  void whatATaskLeftBehindWhileNoAgentRanIsKilledByTheOutputItWritesTo() throws Exception {
    var log = dir.resolve("train-w-0.log");
    var first =
        new ProcessBuilder("sh", "-c", "sleep 300 & echo $!")
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    started.add(first);
    var handle = first.toHandle();
    var earlier = new FileRunRecords(dir, List.of("podman"));
    earlier.started("train-w-0", "uid-a", handle("train-w-0", Optional.of(handle)));
    assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue(); // the first process is over
    var child = ProcessHandle.of(Long.parseLong(Files.readString(log).strip())).orElseThrow();
    assertThat(child.isAlive()).isTrue();
    // The earlier agent died before it saw the end: nothing more is written.

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    assertThat(leftovers.get("train-w-0").found())
        .isEqualTo(
            "its process "
                + handle.pid()
                + " was gone, but 1 process(es) it left still wrote to its output ("
                + child.pid()
                + ") and were killed");
    assertThat(ProcessTree.running(child)).isFalse();
  }

  /**
   * A leftover's parent is init, which may reap it late or never (a container's first process often
   * does not): once killed it is a zombie, which holds nothing, and counts as gone. Here the
   * leftovers' parent is a shell turned into {@code sleep}, which never reaps; the naive wait, for
   * the process to vanish, gave up after 10 s on each in turn and said they had not exited.
   */
  @Test
  void killedLeftoversThatNobodyReapsCountAsGone() throws Exception {
    var earlier = new FileRunRecords(dir, List.of("podman"));
    var children = new ArrayList<ProcessHandle>();
    for (int i = 0; i < 3; i++) {
      // The shell starts a child, prints its pid, then becomes a sleep that never waits for it.
      var parent = new ProcessBuilder("sh", "-c", "sleep 300 & echo $!; exec sleep 300").start();
      started.add(parent);
      long pid = Long.parseLong(parent.inputReader().readLine().strip());
      var child = ProcessHandle.of(pid).orElseThrow();
      children.add(child);
      // Until the shell has become sleep it may still reap the child itself: wait for that
      // (bounded).
      for (int tries = 0;
          tries < 1000 && !parent.info().command().orElse("").endsWith("sleep");
          tries++) {
        try {
          parent.onExit().get(10, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          // look again
        }
      }
      assertThat(parent.info().command()).hasValueSatisfying(c -> assertThat(c).endsWith("sleep"));
      earlier.started("train-w-" + i, "uid-" + i, handle("train-w-" + i, Optional.of(child)));
    }

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    for (int i = 0; i < 3; i++) {
      assertThat(leftovers.get("train-w-" + i).found())
          .isEqualTo("its process " + children.get(i).pid() + " was still running and was killed");
      assertThat(ProcessTree.running(children.get(i))).isFalse();
      assertThat(ProcessTree.state(children.get(i).pid())).contains('Z'); // not reaped: a zombie
    }
  }

  @Test
  void aLeftoversDescendantsAreKilledWithIt() throws Exception {
    // A task's shell that started a worker of its own, which must not keep running (and holding a
    // GPU).
    var shell = new ProcessBuilder("sh", "-c", "sleep 300 & echo $!; wait").start();
    started.add(shell);
    var worker =
        ProcessHandle.of(Long.parseLong(shell.inputReader().readLine().strip())).orElseThrow();
    new FileRunRecords(dir, List.of("podman"))
        .started("train-w-0", "uid-a", handle("train-w-0", Optional.of(shell.toHandle())));

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    assertThat(leftovers.get("train-w-0").found()).endsWith("was still running and was killed");
    // Killed, it is gone once reaped or a zombie (its new parent, init, may reap it late): await
    // that, bounded.
    for (int i = 0; i < 200 && ProcessTree.running(worker); i++) {
      try {
        worker.onExit().get(50, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        // look again
      }
    }
    assertThat(ProcessTree.running(worker)).isFalse();
  }

  @Test
  void aRecordIsOwnerOnlyFromItsFirstByte() throws Exception {
    var records = new FileRunRecords(dir, List.of("podman"));
    records.started("train-w-0", "uid-a", handle("train-w-0", Optional.empty()));

    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(FileRunRecords.FILE))))
        .isEqualTo("rw-------");
  }

  @Test
  void theFileIsRewrittenWithTheLiveRecordsAloneSoItStaysSmall() throws Exception {
    var records = new FileRunRecords(dir, List.of("podman"));
    records.started("long-running", "uid-long", handle("long-running", Optional.empty()));
    for (int i = 0; i < 3 * FileRunRecords.COMPACT_AFTER_ENDED; i++) {
      records.started("short-" + i, "uid-" + i, handle("short-" + i, Optional.empty()));
      records.remove("short-" + i);
    }

    // Without the rewrite: 6,145 lines; with it, never more than the live record and 2 × 1,024
    // more.
    assertThat(Files.readAllLines(dir.resolve(FileRunRecords.FILE)).size())
        .isLessThanOrEqualTo(1 + 2 * FileRunRecords.COMPACT_AFTER_ENDED);
    assertThat(new FileRunRecords(dir, List.of("podman")).stopAll())
        .containsOnlyKeys("long-running");
  }

  @Test
  void recordsOfTheEarlierOneFilePerTaskFormatAreStoppedToo() throws Exception {
    var a = sleeping("train-w-0");
    Files.writeString(
        dir.resolve("train-w-0.run"),
        "uid=uid-a\npid="
            + a.process().orElseThrow().pid()
            + "\nstart="
            + a.process().orElseThrow().info().startInstant().orElseThrow()
            + "\n");

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    assertThat(leftovers).containsOnlyKeys("train-w-0");
    assertThat(leftovers.get("train-w-0").found()).endsWith("was still running and was killed");
    assertThat(dir.resolve("train-w-0.run")).doesNotExist();
  }

  @Test
  void aLineThatIsNotARecordIsSkippedAndTheRestStillCount() throws Exception {
    var a = sleeping("train-w-0");
    new FileRunRecords(dir, List.of("podman")).started("train-w-0", "uid-a", a);
    Files.writeString(
        dir.resolve(FileRunRecords.FILE),
        "started\ttrain-w-1\tuid=uid-b\tpid=12",
        java.nio.file.StandardOpenOption.APPEND);
    Files.writeString(
        dir.resolve(FileRunRecords.FILE), "x\n", java.nio.file.StandardOpenOption.APPEND);

    var leftovers = new FileRunRecords(dir, List.of("podman")).stopAll();

    assertThat(leftovers).containsOnlyKeys("train-w-0");
    assertThat(ProcessTree.running(started.get(0).toHandle()))
        .isFalse(); // gone, or a zombie: it holds nothing
  }

  @Test
  void linesRoundTrip() {
    var full =
        new RunLine.Started(
            "train-w-0",
            "uid-a",
            Optional.of(21393L),
            Optional.of(java.time.Instant.parse("2026-11-25T22:40:55.120Z")),
            Optional.of("qm-train-w-0"));
    var bare =
        new RunLine.Started(
            "noop-0", "uid-c", Optional.empty(), Optional.empty(), Optional.empty());
    var ended = new RunLine.Ended("train-w-0");

    for (RunLine line : List.of(full, bare, ended)) {
      assertThat(RunLine.parse(line.encode())).contains(line);
    }
    assertThat(RunLine.parse("started\ttrain-w-0\tpid=12")).as("no uid").isEmpty();
    assertThat(RunLine.parse("started\ttrain-w-0\tuid=a\tpid=twelve")).isEmpty();
    assertThat(RunLine.parse("")).isEmpty();
  }
}
