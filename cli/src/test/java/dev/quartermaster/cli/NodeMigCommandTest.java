package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code qm node mig}, {@code get nodes} and {@code describe node} on a node whose {@code gpu-0}
 * publishes an H200's every possible slice (the issue-46 contract) and {@code gpu-1} is whole, a
 * claim holding the 3g slice at position 0.
 */
class NodeMigCommandTest {
  static final MigGeometry H200 = MigGeometry.H200_141GB;
  static final String HELD =
      MigGeometry.deviceName("gpu-0", new MigPlacement(H200.profile("3g.71gb").orElseThrow(), 0));

  @TempDir Path dir;
  CliServer cli;

  @BeforeEach
  void start() throws Exception {
    cli = CliServer.start(dir);
    var r = cli.registry;
    r.create(
        new Node(
            ObjectMeta.named("node-3"),
            NodeSpec.EMPTY.withMig("gpu-0", Optional.of(MigMode.Dynamic)),
            NodeStatus.EMPTY));
    var devices = new ArrayList<>(H200.devices("gpu-0"));
    devices.add(new Device("gpu-1", "gpu", Map.of(), Device.Health.Healthy, ""));
    r.create(
        new DeviceSlice(
            ObjectMeta.named("node-3"),
            new DeviceSliceSpec("node-3", devices, List.of(H200.counterSet("gpu-0"))),
            null));
    var claim =
        r.create(
            new ResourceClaim(
                ObjectMeta.named("a-mig"),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("mig", "mig-3g.71gb", 1, List.of())),
                    Optional.empty()),
                ResourceClaimStatus.EMPTY));
    r.create(
        new NodeAllocation(
            ObjectMeta.named("node-3"),
            new NodeAllocationSpec(Map.of(HELD, new DeviceHolder("a-mig", claim.metadata().uid()))),
            null));
    r.updateStatus(
        claim.withStatus(
            claim
                .status()
                .withAllocation(
                    new Allocation(
                        "node-3", List.of(new Allocation.AllocatedDevice("mig", HELD))))));
  }

  @AfterEach
  void stop() {
    cli.close();
  }

  @Test
  void aModeChangeIsRecordedOnAnIdleGpuAndRefusedNamingTheClaimOnAHeldOne() {
    var idle = cli.run("node", "mig", "node-3", "--gpu", "gpu-1", "static");
    assertThat(idle.exit()).as(idle.err()).isZero();
    assertThat(idle.out()).isEqualTo("node/node-3 MIG Static for gpu-1\n");
    assertThat(cli.registry.get(Kinds.NODE, "node-3").orElseThrow().spec().mig())
        .containsEntry("gpu-1", MigMode.Static);

    var held = cli.run("node", "mig", "node-3", "--gpu", "gpu-0", "off");
    assertThat(held.exit()).isEqualTo(1);
    assertThat(held.err())
        .contains("the mode of gpu-0 may change only while nothing holds the GPU")
        .contains("held by claim/a-mig (" + HELD + ")");
    assertThat(cli.registry.get(Kinds.NODE, "node-3").orElseThrow().spec().mig())
        .containsEntry("gpu-0", MigMode.Dynamic);

    var unknown = cli.run("node", "mig", "node-3", "--gpu", "gpu-7", "dynamic");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("spec.mig.gpu-7: node node-3 has no GPU gpu-7");
  }

  @Test
  void getNodesCountsFreeSlicesAndDescribeDrawsThePositions() {
    var nodes = cli.run("get", "nodes");
    assertThat(nodes.outLines().get(1)).matches("node-3 .* 4/7 .*");

    var described = cli.run("describe", "node", "node-3");
    assertThat(described.out())
        .containsPattern("MIG: +gpu-0=Dynamic\n")
        .containsPattern("Mode: +Dynamic\n")
        .containsPattern("Model: +H200-141GB\n")
        .containsPattern("Free: +4/7 compute slices\n")
        .containsPattern("Positions: +\\[3g.71gb: claim/a-mig]\\[·]\\[·]\\[·]\\[·]\n")
        // 3g at 0 rather than 4 leaves 4 compute and 4 memory slices, yet no start for 4g.
        .containsPattern("Fragmented: +gpu-0 is fragmented: .* no 4g.71gb fits")
        .contains(HELD)
        .doesNotContain("gpu-0-mig-1g1m-0");
  }
}
