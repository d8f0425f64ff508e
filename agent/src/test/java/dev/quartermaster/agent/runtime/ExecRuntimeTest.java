package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.Mknod;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecRuntimeTest {
  @TempDir Path dir;
  private SimulatedDeviceRoot sim;
  private Path cdi;
  private ExecRuntime runtime;

  @BeforeEach
  void setUp() throws Exception {
    sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(1).build();
    cdi = dir.resolve("cdi");
    runtime = new ExecRuntime(new CdiResolver(List.of(cdi)));
  }

  private String spec(String device, List<String> env) throws Exception {
    var complete = (ControlNodeStatus.Complete) new ControlNodeCheck(sim.root()).check();
    return TestSpecs.write(cdi, device, complete.nodes(), env, "rw");
  }

  private TaskLaunch launch(
      String name, List<String> command, Map<String, String> env, List<String> devices) {
    return new TaskLaunch(
        name, command, env, devices, List.of(), new TaskImage.Host(), dir.resolve(name + ".out"));
  }

  @Test
  void runsAProcessWithTheCdiEnvAppliedAfterItsOwn() throws Exception {
    var device = spec("claim1-gpu-0", List.of("QM_GPU=GPU-1", "SHARED=from-cdi"));

    var task =
        runtime.start(
            launch(
                "t1",
                List.of("/bin/sh", "-c", "echo gpu=$QM_GPU own=$OWN shared=$SHARED"),
                Map.of("OWN", "yes", "SHARED", "from-task"),
                List.of(device)));

    var result = task.result().get(60, TimeUnit.SECONDS);
    assertThat(result)
        .isInstanceOfSatisfying(
            TaskResult.Exited.class,
            e -> {
              assertThat(e.code()).isZero();
              assertThat(e.check().opened())
                  .containsExactly(
                      sim.nodePath(ControlNode.NVIDIACTL).toString(),
                      sim.nodePath(ControlNode.NVIDIA_UVM).toString(),
                      sim.nodePath(ControlNode.NVIDIA_UVM_TOOLS).toString(),
                      sim.nodePath(ControlNode.NVIDIA_MODESET).toString());
            });
    assertThat(Files.readString(task.output())).isEqualTo("gpu=GPU-1 own=yes shared=from-cdi\n");
    assertThat(task.deviceCheck().get()).isInstanceOf(DeviceCheck.Passed.class);
  }

  /**
   * Issue 30 item 12, exec: a process given one GPU of a two-GPU claim plus a channel claim is told
   * that GPU and both claims, composed from exactly the devices it got, as the podman runtime does.
   */
  @Test
  void theComposedDeviceEnvironmentNamesExactlyTheDevicesGiven() throws Exception {
    var node = SimulatedDeviceRoot.builder(dir.resolve("node2")).gpus(2).channels(2).build();
    var gpus =
        ((dev.quartermaster.agent.discovery.DiscoveryResult.Found)
                new dev.quartermaster.agent.discovery.ProcGpuDiscovery(node.root()).discover())
            .gpus();
    var channels = dev.quartermaster.agent.discovery.ImexChannels.scan(node.root()).channels();
    var controlNodes =
        ((ControlNodeStatus.Complete) new ControlNodeCheck(node.root()).check()).nodes();
    var writer = new dev.quartermaster.agent.cdi.CdiSpecWriter(cdi);
    var gpuNames =
        writer.write(new dev.quartermaster.agent.ledger.ClaimRef("uid-g", "g"), gpus, controlNodes);
    var channelNames =
        writer.write(
            new dev.quartermaster.agent.ledger.ClaimRef("uid-c", "c"),
            List.of(),
            channels.subList(1, 2),
            controlNodes);
    var devices = List.of(gpuNames.get(1), channelNames.getFirst());

    var task =
        runtime.start(
            launch(
                "t9",
                List.of(
                    "/bin/sh",
                    "-c",
                    "echo $QUARTERMASTER_GPU_UUIDS/$QUARTERMASTER_CLAIM_UIDS/${QUARTERMASTER_CLAIM_UID-unset}"
                        + "/$QUARTERMASTER_IMEX_CHANNELS/$CUDA_VISIBLE_DEVICES/$QUARTERMASTER_GPU_1_CLAIM_UID/${QUARTERMASTER_GPU_0_UUID-unset}"),
                Map.of("QUARTERMASTER_GPU_UUIDS", "the task's own"),
                devices));

    assertThat(task.result().get(60, TimeUnit.SECONDS)).isInstanceOf(TaskResult.Exited.class);
    var uuid = gpus.get(1).uuid();
    assertThat(Files.readString(task.output()))
        .isEqualTo(uuid + "/uid-g,uid-c/unset/1/" + uuid + "/uid-g/unset\n");
  }

  /**
   * A task's own children die with it, also when several tasks are killed as one batch sharing one
   * look at the host's processes (an agent stopping): none is left holding its GPU.
   */
  @Test
  void killingTasksKillsTheProcessesTheyStartedToo() throws Exception {
    var device = spec("claim3-gpu-0", List.of());
    var tasks = new java.util.ArrayList<TaskHandle>();
    var workers = new java.util.ArrayList<ProcessHandle>();
    for (int i = 0; i < 3; i++) {
      // The task starts a worker and says its pid through a FIFO, which the test's read waits on.
      var fifo = dir.resolve("k" + i + ".pid");
      assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
      tasks.add(
          runtime.start(
              launch(
                  "k" + i,
                  List.of("/bin/sh", "-c", "sleep 300 & echo $! > " + fifo + "; wait"),
                  Map.of(),
                  List.of(device))));
      var pid =
          java.util.concurrent.CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return Long.parseLong(Files.readString(fifo).strip());
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .get(60, TimeUnit.SECONDS);
      workers.add(ProcessHandle.of(pid).orElseThrow());
    }

    var tree = ProcessTree.onDemand();
    tasks.forEach(t -> t.kill(tree));

    for (int i = 0; i < 3; i++) {
      assertThat(tasks.get(i).result().get(60, TimeUnit.SECONDS))
          .isInstanceOf(TaskResult.Exited.class);
      // Its parent killed too, the worker goes to init, which may reap it late: gone or a zombie,
      // bounded.
      var worker = workers.get(i);
      for (int tries = 0; tries < 1200 && ProcessTree.running(worker); tries++) {
        try {
          worker.onExit().get(50, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          // look again
        }
      }
      assertThat(ProcessTree.running(worker)).as("worker %d", i).isFalse();
    }
  }

  @Test
  void aNodeThatIsGoneFailsTheCheckNamingItAndTheCommandNeverRuns() throws Exception {
    var device = spec("claim2-gpu-0", List.of());
    sim.removeNode(ControlNode.NVIDIA_UVM);
    var marker = dir.resolve("ran");

    var task =
        runtime.start(
            launch("t2", List.of("/bin/touch", marker.toString()), Map.of(), List.of(device)));

    var uvm = sim.nodePath(ControlNode.NVIDIA_UVM).toString();
    assertThat(task.result().get(60, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.DeviceCheckFailed.class,
            f -> {
              assertThat(f.check().message()).isEqualTo(uvm + ": No such file or directory");
              assertThat(f.check().opened())
                  .containsExactly(sim.nodePath(ControlNode.NVIDIACTL).toString());
            });
    assertThat(task.state()).isInstanceOf(TaskState.Finished.class);
    assertThat(marker).doesNotExist();
  }

  @Test
  void aNodeWithoutADriverFailsWithTheKernelsWords() throws Exception {
    var node = dir.resolve("nodriver");
    try {
      Mknod.charDevice(node, new DeviceNumber(10, 1)); // no misc driver has minor 1
    } catch (java.io.IOException e) {
      assumeTrue(false, "needs mknod (run as root)");
    }
    var device =
        TestSpecs.write(
            cdi,
            "claim3-gpu-0",
            List.of(new VerifiedNode("/dev/nvidia0", node, new DeviceNumber(10, 1))),
            List.of(),
            "rw");

    var task = runtime.start(launch("t3", List.of("/bin/true"), Map.of(), List.of(device)));

    assertThat(task.result().get(60, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.DeviceCheckFailed.class,
            f -> assertThat(f.check().message()).isEqualTo(node + ": No such device"));
  }

  @Test
  void anUnresolvableDeviceIsAStartFailure() throws Exception {
    var task =
        runtime.start(
            launch(
                "t4", List.of("/bin/true"), Map.of(), List.of("test.quartermaster.dev/gpu=nope")));
    assertThat(task.result().get(60, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.StartFailed.class,
            s ->
                assertThat(s.reason())
                    .contains("unresolvable CDI device test.quartermaster.dev/gpu=nope"));
    assertThat(task.deviceCheck().get()).isInstanceOf(DeviceCheck.NotRun.class);
  }

  /**
   * A terminal's Ctrl-C reaches the foreground process group of {@code qm up}: a task in a session
   * of its own never gets it, and stops only as the agent stops it.
   */
  @Test
  void aTaskRunsInASessionOfItsOwnOutOfTheAgentsProcessGroup() throws Exception {
    var task = runtime.start(launch("t7", List.of("/bin/sleep", "600"), Map.of(), List.of()));
    try {
      var pid = task.process().orElseThrow().pid();
      // setsid makes the session, then execs the task in place: read once it is the task.
      var comm = java.nio.file.Path.of("/proc/" + pid + "/comm");
      for (int i = 0;
          i < 10_000 && !java.nio.file.Files.readString(comm).trim().equals("sleep");
          i++) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
      var stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
      var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long group = Long.parseLong(fields[2]);
      long session = Long.parseLong(fields[3]);
      var own = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      long agentGroup = Long.parseLong(own.substring(own.lastIndexOf(')') + 2).split(" ")[2]);

      assertThat(session).isEqualTo(pid);
      assertThat(group).isEqualTo(pid).isNotEqualTo(agentGroup);
      assertThat(ProcessHandle.of(pid).flatMap(h -> h.info().command()))
          .hasValueSatisfying(c -> assertThat(c).endsWith("sleep"));
    } finally {
      task.kill();
    }
  }

  /**
   * A task is over only when nothing of it lives: its first process ending leaves no child behind
   * holding its devices. The partitions harness saw the naive end (the first process's exit): a
   * task's {@code sleep} outlived its shell with the task's GPU in its environment, and the agent
   * had already let the claim go and prepared the GPU for another task.
   */
  @Test
  void whatATasksFirstProcessLeftBehindIsGoneWhenTheTaskEnds() throws Exception {
    var child = dir.resolve("child.pid");
    var task =
        runtime.start(
            launch(
                "t9",
                List.of("/bin/sh", "-c", "sleep 600 & echo $! > " + child + "; exit 3"),
                Map.of(),
                List.of()));
    var result = task.result().get(60, TimeUnit.SECONDS);
    assertThat(result).isInstanceOf(TaskResult.Exited.class);
    long pid = Long.parseLong(java.nio.file.Files.readString(child).strip());
    assertThat(ProcessHandle.of(pid).filter(ProcessTree::running))
        .as("the task's background sleep, once the task is over")
        .isEmpty();
  }

  /**
   * SIGTERM reaches the whole group at once: a shell between two children forks the next one while
   * the agent stops it, and that child is stopped too (signalled one by one, children first, it
   * escaped, with the task's environment, for the length of its sleep).
   */
  @Test
  void aStopReachesTheChildForkedWhileItStops() throws Exception {
    for (int round = 0; round < 20; round++) {
      var task =
          runtime.start(
              launch(
                  "t10-" + round,
                  List.of("/bin/sh", "-c", "while true; do sleep 0.01; done"),
                  Map.of(),
                  List.of()));
      var leader = task.process().orElseThrow().pid();
      java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L + round * 1_000_000L);
      task.terminate();
      task.result().get(60, TimeUnit.SECONDS);
      assertThat(groupMembers(leader)).as("round " + round).isEmpty();
    }
  }

  /** The living processes of process group {@code group}, from /proc. */
  private static List<Long> groupMembers(long group) throws Exception {
    try (var procs = java.nio.file.Files.list(java.nio.file.Path.of("/proc"))) {
      return procs
          .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .filter(
              p -> {
                try {
                  var stat = java.nio.file.Files.readString(p.resolve("stat"));
                  var f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                  return Long.parseLong(f[2]) == group && !f[0].equals("Z");
                } catch (Exception e) {
                  return false;
                }
              })
          .map(p -> Long.parseLong(p.getFileName().toString()))
          .toList();
    }
  }

  @Test
  void aProgramThatIsNotThereIsAStartFailureNamingIt() throws Exception {
    var task = runtime.start(launch("t8", List.of("no-such-program-qm"), Map.of(), List.of()));
    assertThat(task.result().get(60, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.StartFailed.class,
            s ->
                assertThat(s.reason())
                    .contains(
                        "cannot start no-such-program-qm: no such executable file on the PATH"));
  }

  @Test
  void killEndsARunningTask() throws Exception {
    var task = runtime.start(launch("t5", List.of("/bin/sleep", "600"), Map.of(), List.of()));
    assertThat(task.state()).isInstanceOf(TaskState.Running.class);

    task.kill();

    assertThat(task.result().get(60, TimeUnit.SECONDS))
        .isEqualTo(new TaskResult.Exited(137, new DeviceCheck.Passed(List.of())));
  }
}
