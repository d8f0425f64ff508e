package dev.quartermaster.agent.controlnodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.Mknod;
import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlNodeCheckTest {

  @TempDir Path dir;

  private SimulatedDeviceRoot charRoot(SimulatedDeviceRoot.Builder builder) throws Exception {
    var sim = builder.build();
    assumeTrue(
        sim.charDevices(),
        () -> "needs real character devices: " + sim.fallbackReason().orElse(""));
    return sim;
  }

  @Test
  void aFullRootIsCompleteWithEveryNodeAndItsNumber() throws Exception {
    var sim = charRoot(SimulatedDeviceRoot.builder(dir).gpus(1));

    var status = new ControlNodeCheck(sim.root()).check();

    assertThat(status)
        .isInstanceOfSatisfying(
            ControlNodeStatus.Complete.class,
            c -> {
              assertThat(c.nodes())
                  .extracting(VerifiedNode::path)
                  .containsExactly(
                      "/dev/nvidiactl",
                      "/dev/nvidia-uvm",
                      "/dev/nvidia-uvm-tools",
                      "/dev/nvidia-modeset");
              assertThat(c.nodes().get(1))
                  .isEqualTo(
                      new VerifiedNode(
                          "/dev/nvidia-uvm",
                          sim.nodePath(ControlNode.NVIDIA_UVM),
                          sim.standIn("nvidia-uvm")));
              assertThat(c.notes()).isEmpty();
            });
    assertThat(status.ready()).isTrue();
  }

  @Test
  void missingUvmIsIncompleteNamingThePathAndRestoringMakesItComplete() throws Exception {
    var sim = charRoot(SimulatedDeviceRoot.builder(dir).gpus(1).without(ControlNode.NVIDIA_UVM));
    var check = new ControlNodeCheck(sim.root());

    var status = check.check();

    assertThat(status)
        .isInstanceOfSatisfying(
            ControlNodeStatus.Incomplete.class,
            i -> {
              assertThat(i.problems())
                  .containsExactly(
                      new NodeProblem(
                          sim.nodePath(ControlNode.NVIDIA_UVM),
                          NodeProblem.Kind.Missing,
                          "missing " + sim.nodePath(ControlNode.NVIDIA_UVM)));
              assertThat(i.present())
                  .extracting(VerifiedNode::path)
                  .contains("/dev/nvidiactl")
                  .doesNotContain("/dev/nvidia-uvm");
            });
    assertThat(status.reason()).isEqualTo("ControlNodeMissing");
    assertThat(status.message()).endsWith("/dev/nvidia-uvm");

    sim.restoreNode(ControlNode.NVIDIA_UVM);
    assertThat(check.check()).isInstanceOf(ControlNodeStatus.Complete.class);
  }

  @Test
  void aRegularFileOrAWrongNumberIsNamed() throws Exception {
    var sim = charRoot(SimulatedDeviceRoot.builder(dir).gpus(1));
    var check = new ControlNodeCheck(sim.root());

    sim.replaceWithRegularFile(ControlNode.NVIDIACTL);
    assertThat(check.check().message())
        .isEqualTo(
            sim.nodePath(ControlNode.NVIDIACTL)
                + " is a regular file, expected a character device "
                + sim.standIn("nvidiactl"));
    assertThat(check.check().reason()).isEqualTo("ControlNodeWrong");

    Files.delete(sim.nodePath(ControlNode.NVIDIACTL));
    Mknod.charDevice(sim.nodePath(ControlNode.NVIDIACTL), sim.standIn("nvidia-uvm"));
    assertThat(check.check().message())
        .isEqualTo(
            sim.nodePath(ControlNode.NVIDIACTL)
                + " is a character device "
                + sim.standIn("nvidia-uvm")
                + ", expected a character device "
                + sim.standIn("nvidiactl"));
  }

  @Test
  void modesetIsOptional() throws Exception {
    var sim = SimulatedDeviceRoot.builder(dir).gpus(1).modeset(false).regularFiles().build();

    var status = new ControlNodeCheck(sim.root()).check();

    assertThat(status)
        .isInstanceOfSatisfying(
            ControlNodeStatus.Complete.class,
            c -> {
              assertThat(c.nodes())
                  .extracting(VerifiedNode::path)
                  .doesNotContain("/dev/nvidia-modeset")
                  .hasSize(3);
              assertThat(c.notes()).singleElement().asString().contains("nvidia-modeset");
            });
  }

  @Test
  void onARealLayoutTheNumbersComeFromProcDevices() throws Exception {
    Files.createDirectories(dir.resolve("proc"));
    var dev = Files.createDirectories(dir.resolve("dev"));
    assumeTrue(canMknod(dev), "needs mknod (run as root)");
    Files.writeString(
        dir.resolve("proc/devices"),
        "Character devices:\n  1 mem\n195 nvidia\n 10 misc\n\nBlock devices:\n  8 sd\n");
    Mknod.charDevice(dev.resolve("nvidiactl"), new DeviceNumber(195, 255));

    var status = new ControlNodeCheck(dir).check();

    // No nvidia-uvm major: the module is not loaded, and the message says so for both uvm nodes.
    assertThat(status)
        .isInstanceOfSatisfying(
            ControlNodeStatus.Incomplete.class,
            i -> {
              assertThat(i.problems())
                  .extracting(NodeProblem::kind)
                  .containsOnly(NodeProblem.Kind.DriverNotLoaded);
              assertThat(i.problems())
                  .extracting(NodeProblem::path)
                  .containsExactly(dev.resolve("nvidia-uvm"), dev.resolve("nvidia-uvm-tools"));
              assertThat(i.present())
                  .containsExactly(
                      new VerifiedNode(
                          "/dev/nvidiactl", dev.resolve("nvidiactl"), new DeviceNumber(195, 255)));
            });
    assertThat(status.message())
        .contains("nvidia-uvm module is not loaded")
        .contains(dir.resolve("proc/devices").toString());
    assertThat(status.reason()).isEqualTo("DriverNotLoaded");
  }

  static boolean canMknod(Path dir) {
    try {
      Mknod.charDevice(dir.resolve(".probe"), new DeviceNumber(1, 3));
      Files.delete(dir.resolve(".probe"));
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
