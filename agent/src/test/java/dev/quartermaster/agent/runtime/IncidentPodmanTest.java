package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.controlnodes.ControlNodeWatcher;
import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I3 end to end at the runtime level, with real containers: a node whose device root lacks {@code
 * nvidia-uvm} is not ready and says which; when the node appears, the rescan makes it ready; a
 * container given every node (through CDI) opens every one; and the naive start-up snapshot
 * reproduces the incident: the container gets "Operation not permitted" on {@code /dev/nvidia-uvm}.
 */
class IncidentPodmanTest {
  private static final int TIMEOUT_S = 180;

  /** What CUDA's initialisation does first, in miniature: open the control nodes and the GPU. */
  private static final List<String> CUDA_INIT =
      List.of(
          "/bin/sh",
          "-c",
          "exec 3</dev/nvidiactl 4</dev/nvidia-uvm 5</dev/nvidia0 && echo cuda-init-ok");

  @TempDir Path dir;
  private final List<Path> specs = new ArrayList<>();
  private SimulatedDeviceRoot sim;
  private Path rootfs;
  private PodmanRuntime runtime;

  @BeforeEach
  void setUp() throws Exception {
    var why = PodmanSupport.unavailable();
    assumeTrue(why.isEmpty(), () -> "podman tests skipped: " + why.orElse(""));
    // The agent starts before the nvidia-uvm node exists (module loaded late, udev not run yet).
    sim =
        SimulatedDeviceRoot.builder(dir.resolve("node"))
            .gpus(1)
            .without(ControlNode.NVIDIA_UVM)
            .build();
    assumeTrue(
        sim.charDevices(),
        () -> "needs character-device stand-ins: " + sim.fallbackReason().orElse(""));
    rootfs = PodmanSupport.busyboxRootfs(dir.resolve("rootfs"));
    runtime = new PodmanRuntime(new SystemEnv(), PodmanSupport.options());
  }

  @AfterEach
  void removeSpecs() throws Exception {
    for (var s : specs) {
      Files.deleteIfExists(s);
    }
  }

  @Test
  void aGpuTaskStartsOnlyWithEveryNodeAndTheNaiveSnapshotGetsOperationNotPermitted()
      throws Exception {
    var gpu = gpu0();
    var naive = NaiveDevicePlugin.startUp(sim.devDir()); // its one look, at start-up: no uvm
    var statuses = new LinkedBlockingQueue<ControlNodeStatus>();

    try (var watcher =
        ControlNodeWatcher.start(
            new SystemEnv(),
            new ControlNodeCheck(sim.root()),
            Duration.ofSeconds(1),
            ControlNodeWatcher.FileWatch.OFF,
            statuses::add)) {
      // 1. Not DevicesReady, naming nvidia-uvm: a GPU task must not start.
      var first = await(statuses, s -> true);
      assertThat(first.ready()).isFalse();
      assertThat(first.reason()).isEqualTo("ControlNodeMissing");
      assertThat(first.message()).isEqualTo("missing " + sim.nodePath(ControlNode.NVIDIA_UVM));
      assertThat(refusal(first))
          .hasValue(
              "DevicesReady=False (ControlNodeMissing): missing "
                  + sim.nodePath(ControlNode.NVIDIA_UVM));

      // 2. The node appears; the periodic rescan (1 s here) sees it.
      sim.restoreNode(ControlNode.NVIDIA_UVM);
      var ready = (ControlNodeStatus.Complete) await(statuses, ControlNodeStatus::ready);
      assertThat(refusal(ready)).isEmpty();

      // 3. Ours: the spec lists the GPU node and every control node, checked now; the container
      // opens all.
      var oursNodes = new ArrayList<VerifiedNode>(List.of(gpu.node()));
      oursNodes.addAll(ready.nodes());
      var ours = runtime.start(launch("ours", spec("ours", oursNodes), List.of()));
      assertThat(ours.result().get(TIMEOUT_S, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              TaskResult.Exited.class,
              e -> {
                assertThat(e.check().opened())
                    .containsExactly(
                        "/dev/nvidia0",
                        "/dev/nvidiactl",
                        "/dev/nvidia-uvm",
                        "/dev/nvidia-uvm-tools",
                        "/dev/nvidia-modeset");
                assertThat(e.code()).isZero();
              });
      assertThat(Files.readString(ours.output())).contains("cuda-init-ok");

      // 4. Naive: its spec comes from the start-up snapshot (no uvm); the hook mounts uvm without a
      // cgroup rule.
      assertThat(naive.controlNodes())
          .extracting(VerifiedNode::path)
          .doesNotContain("/dev/nvidia-uvm");
      var naiveNodes = new ArrayList<VerifiedNode>(List.of(gpu.node()));
      naiveNodes.addAll(naive.controlNodes());
      var naiveTask =
          runtime.start(
              launch(
                  "naive", spec("naive", naiveNodes), NaiveDevicePlugin.hookMounts(sim.devDir())));
      var naiveResult = naiveTask.result().get(TIMEOUT_S, TimeUnit.SECONDS);
      // Its own check passes (it checks only what it gave) and the task "runs"; then CUDA fails.
      assertThat(naiveResult)
          .isInstanceOfSatisfying(
              TaskResult.Exited.class,
              e -> {
                assertThat(e.check().opened()).doesNotContain("/dev/nvidia-uvm");
                assertThat(e.code()).isNotZero();
              });
      var output = Files.readString(naiveTask.output());
      assertThat(output)
          .contains("/dev/nvidia-uvm: Operation not permitted")
          .doesNotContain("cuda-init-ok");
      assertThat(watcher.current().ready()).isTrue();
    }
  }

  /** What the agent does before starting GPU work: refuse, with the condition, unless complete. */
  private static Optional<String> refusal(ControlNodeStatus status) {
    return status.ready()
        ? Optional.empty()
        : Optional.of("DevicesReady=False (" + status.reason() + "): " + status.message());
  }

  private DiscoveredGpu gpu0() {
    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover();
    assertThat(found.problems()).isEmpty();
    return found.gpus().getFirst();
  }

  private String spec(String which, List<VerifiedNode> nodes) throws Exception {
    var device = "incident" + Long.toHexString(System.nanoTime()) + "-" + which;
    specs.add(TestSpecs.file(PodmanSupport.CDI_DIR, device));
    return TestSpecs.write(PodmanSupport.CDI_DIR, device, nodes, List.of(), "rw");
  }

  private TaskLaunch launch(String name, String device, List<Mount> mounts) {
    return new TaskLaunch(
        name,
        CUDA_INIT,
        Map.of(),
        List.of(device),
        mounts,
        new TaskImage.Rootfs(rootfs),
        dir.resolve(name + ".out"));
  }

  private static ControlNodeStatus await(
      LinkedBlockingQueue<ControlNodeStatus> seen, Predicate<ControlNodeStatus> wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      var next = seen.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(next).as("a matching control-node status within 30 s").isNotNull();
      if (wanted.test(next)) {
        return next;
      }
    }
  }
}
