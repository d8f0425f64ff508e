package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.cdi.CdiDeviceNode;
import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure parts: the check script's lines, CDI resolution, limits, launch validation. */
class RuntimeUnitTest {

  @TempDir Path dir;

  @Test
  void parsesCheckLinesFromDifferentShells() {
    assertThat(DeviceCheckScript.parse("qm-device-check: opened /dev/nvidiactl"))
        .contains(new DeviceCheckScript.Line.Opened("/dev/nvidiactl"));
    assertThat(DeviceCheckScript.parse("qm-device-check: all opened"))
        .contains(new DeviceCheckScript.Line.AllOpened());
    for (var shellText :
        List.of(
            "qm-device-check: line 0: can't open /dev/nvidia-uvm: Operation not permitted", // busybox
            "qm-device-check: 1: cannot open /dev/nvidia-uvm: Operation not permitted", // dash
            "qm-device-check: line 4: /dev/nvidia-uvm: Operation not permitted")) { // bash
      assertThat(DeviceCheckScript.parse("qm-device-check: failed /dev/nvidia-uvm: " + shellText))
          .hasValueSatisfying(
              l ->
                  assertThat(l)
                      .isEqualTo(
                          new DeviceCheckScript.Line.Failed(
                              "/dev/nvidia-uvm", "Operation not permitted", shellText)));
    }
    assertThat(DeviceCheckScript.parse("hello from the task")).isEmpty();
  }

  @Test
  void theWrapperPassesPathsAndCommandAsArguments() {
    var args = DeviceCheckScript.wrap(List.of("/dev/a", "/dev/b"), List.of("echo", "$(rm -rf /)"));
    assertThat(args)
        .startsWith("/bin/sh", "-c", DeviceCheckScript.SCRIPT, "qm-device-check")
        .endsWith("/dev/a", "/dev/b", "--", "echo", "$(rm -rf /)");
    assertThat(DeviceCheckScript.safePath("/dev/nvidia-uvm")).isTrue();
    assertThat(DeviceCheckScript.safePath("/dev/x; rm")).isFalse();
  }

  @Test
  void resolvesCdiNamesLikeARuntime() throws Exception {
    var low = dir.resolve("etc-cdi");
    var high = dir.resolve("run-cdi");
    var node =
        new VerifiedNode(
            "/dev/nvidiactl", Path.of("/sim/dev/nvidiactl"), new DeviceNumber(10, 229));
    TestSpecs.write(low, "a", List.of(node), List.of("FROM=low"), "rw");
    var name = TestSpecs.write(high, "a", List.of(node), List.of("FROM=high"), "rw");

    var edits = new CdiResolver(List.of(low, high)).resolve(List.of(name));

    assertThat(edits.env()).containsExactly("FROM=high");
    assertThat(edits.deviceNodes())
        .containsExactly(
            new CdiDeviceNode("/dev/nvidiactl", "/sim/dev/nvidiactl", "c", 10, 229, "rw"));
    assertThatThrownBy(
            () -> new CdiResolver(List.of(low)).resolve(List.of("test.quartermaster.dev/gpu=zzz")))
        .hasMessageContaining("unresolvable CDI device test.quartermaster.dev/gpu=zzz")
        .hasMessageContaining(low.toString());
  }

  @Test
  void readsHardLimits() {
    var limits =
        """
        Limit                     Soft Limit           Hard Limit           Units
        Max processes             96365                96365                processes
        Max open files            1024                 20000                files
        Max locked memory         unlimited            unlimited            bytes
        """;
    assertThat(HostLimits.parseHard(limits, "Max open files")).hasValue(20000);
    assertThat(HostLimits.parseHard(limits, "Max processes")).hasValue(96365);
    assertThat(HostLimits.parseHard(limits, "Max locked memory")).isEmpty();
  }

  @Test
  void launchesAreValidated() {
    assertThatThrownBy(
            () ->
                new TaskLaunch(
                    "Bad_Name",
                    List.of("true"),
                    Map.of(),
                    List.of(),
                    List.of(),
                    new TaskImage.Host(),
                    dir.resolve("out")))
        .hasMessageContaining("Bad_Name");
    assertThatThrownBy(
            () ->
                new TaskLaunch(
                    "ok",
                    List.of(),
                    Map.of(),
                    List.of(),
                    List.of(),
                    new TaskImage.Host(),
                    dir.resolve("out")))
        .hasMessageContaining("command");
    assertThatThrownBy(() -> new Mount(Path.of("/a"), "/b:c", false)).hasMessageContaining("':'");
  }

  @Test
  void theNoopRuntimeRunsAtOnceWithAPassedCheckAndEndsOnlyWhenKilled(@TempDir Path cdi)
      throws Exception {
    var name =
        TestSpecs.write(
            cdi,
            "noop0",
            List.of(
                new VerifiedNode(
                    "/dev/nvidia0", Path.of("/sim/dev/nvidia0"), new DeviceNumber(10, 229))),
            List.of(),
            "rw");
    var task =
        new NoopRuntime(new CdiResolver(List.of(cdi)))
            .start(
                new TaskLaunch(
                    "bench-0",
                    List.of("true"),
                    Map.of(),
                    List.of(name),
                    List.of(),
                    new TaskImage.Host(),
                    cdi.resolve("out.log")));
    assertThat(task.state())
        .isInstanceOfSatisfying(
            TaskState.Running.class,
            r -> assertThat(r.check().opened()).containsExactly("/dev/nvidia0"));
    assertThat(task.result()).isNotDone();
    task.kill();
    assertThat(task.result().get())
        .isInstanceOfSatisfying(TaskResult.Exited.class, e -> assertThat(e.code()).isEqualTo(137));
  }
}
