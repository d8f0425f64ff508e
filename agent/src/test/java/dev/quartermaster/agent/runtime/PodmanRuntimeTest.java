package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The podman driver on a real container (podman, runc, busybox-static; skipped with the reason
 * where absent).
 */
class PodmanRuntimeTest {
  private static final int TIMEOUT_S = 180;

  @TempDir Path dir;
  private final List<Path> specs = new ArrayList<>();
  private SimulatedDeviceRoot sim;
  private Path rootfs;
  private PodmanRuntime runtime;

  @BeforeEach
  void setUp() throws Exception {
    var why = PodmanSupport.unavailable();
    assumeTrue(why.isEmpty(), () -> "podman tests skipped: " + why.orElse(""));
    sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(1).build();
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

  private String spec(String permissions, List<String> env) throws Exception {
    var complete = (ControlNodeStatus.Complete) new ControlNodeCheck(sim.root()).check();
    var device = "t" + Long.toHexString(System.nanoTime()) + "-gpu-0";
    specs.add(TestSpecs.file(PodmanSupport.CDI_DIR, device));
    return TestSpecs.write(PodmanSupport.CDI_DIR, device, complete.nodes(), env, permissions);
  }

  private TaskLaunch launch(String name, List<String> command, List<String> devices) {
    return new TaskLaunch(
        name,
        command,
        Map.of("OWN", "task"),
        devices,
        List.of(),
        new TaskImage.Rootfs(rootfs),
        dir.resolve(name + ".out"));
  }

  @Test
  void runsInAContainerAfterOpeningEveryNodeInside() throws Exception {
    var device = spec("rw", List.of("QM_GPU=GPU-1"));

    var task =
        runtime.start(
            launch(
                "p1",
                List.of("/bin/sh", "-c", "echo own=$OWN gpu=$QM_GPU; exit 3"),
                List.of(device)));

    var result = task.result().get(TIMEOUT_S, TimeUnit.SECONDS);
    assertThat(result)
        .isInstanceOfSatisfying(
            TaskResult.Exited.class,
            e -> {
              assertThat(e.code()).isEqualTo(3);
              assertThat(e.check().opened())
                  .containsExactly(
                      "/dev/nvidiactl",
                      "/dev/nvidia-uvm",
                      "/dev/nvidia-uvm-tools",
                      "/dev/nvidia-modeset");
            });
    assertThat(Files.readString(task.output()))
        .contains("qm-device-check: all opened")
        .endsWith("own=task gpu=GPU-1\n");
  }

  @Test
  void aNodeTheContainerCannotOpenFailsTheTaskWithPathAndError() throws Exception {
    // Write-only in the device cgroup: the node exists in the container, a read-only open is
    // denied.
    var device = spec("w", List.of());

    var task =
        runtime.start(launch("p2", List.of("/bin/echo", "the command ran"), List.of(device)));

    assertThat(task.result().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.DeviceCheckFailed.class,
            f ->
                assertThat(f.check().message())
                    .isEqualTo("/dev/nvidiactl: Operation not permitted"));
    assertThat(Files.readString(task.output())).doesNotContain("the command ran");
  }

  @Test
  void podmanRefusingIsAStartFailureWithItsWords() throws Exception {
    var task =
        runtime.start(
            new TaskLaunch(
                "p3",
                List.of("/bin/true"),
                Map.of(),
                List.of(),
                List.of(),
                new TaskImage.Rootfs(dir.resolve("no-such-rootfs")),
                dir.resolve("p3.out")));

    assertThat(task.result().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            TaskResult.StartFailed.class,
            s ->
                assertThat(s.reason())
                    .startsWith("podman exited")
                    .contains("before the device check ran"));
  }

  @Test
  void killStopsTheContainer() throws Exception {
    var task = runtime.start(launch("p4", List.of("/bin/sleep", "600"), List.of()));
    assertThat(task.deviceCheck().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOf(DeviceCheck.Passed.class);
    assertThat(task.state()).isInstanceOf(TaskState.Running.class);

    task.kill();

    assertThat(task.result().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(TaskResult.Exited.class, e -> assertThat(e.code()).isEqualTo(137));
  }

  @Test
  void volumesAreBindMountedWritableOrReadOnly() throws Exception {
    // As the hostpath plugin publishes without mount rights: the target is a link to the volume's
    // directory.
    var data = Files.createDirectories(dir.resolve("volumes/data"));
    var dataset = Files.createDirectories(dir.resolve("volumes/dataset"));
    Files.writeString(dataset.resolve("README"), "the dataset\n");
    var dataTarget = Files.createSymbolicLink(dir.resolve("publish-data"), data);
    var datasetTarget = Files.createSymbolicLink(dir.resolve("publish-dataset"), dataset);
    var mounts =
        List.of(
            new Mount(dataTarget, "/volumes/data", false),
            new Mount(datasetTarget, "/volumes/dataset", true));
    var command =
        List.of(
            "/bin/sh",
            "-c",
            "echo written > /volumes/data/out && cat /volumes/dataset/README && (touch /volumes/dataset/x || echo read-only)");

    var task =
        runtime.start(
            new TaskLaunch(
                "p5",
                command,
                Map.of(),
                List.of(),
                mounts,
                new TaskImage.Rootfs(rootfs),
                dir.resolve("p5.out")));

    assertThat(task.result().get(TIMEOUT_S, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(TaskResult.Exited.class, e -> assertThat(e.code()).isZero());
    assertThat(Files.readString(data.resolve("out"))).isEqualTo("written\n");
    assertThat(Files.readString(task.output())).contains("the dataset").contains("read-only");
    assertThat(dataset.resolve("x")).doesNotExist();
  }
}
