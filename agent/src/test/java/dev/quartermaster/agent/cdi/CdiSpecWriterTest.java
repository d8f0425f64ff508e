package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.names.UnsafeNameException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;
  @TempDir Path cdi;

  private SimulatedDeviceRoot sim() throws Exception {
    return SimulatedDeviceRoot.builder(root).gpus(2).build();
  }

  private static List<DiscoveredGpu> gpus(SimulatedDeviceRoot sim) {
    var found = (DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover();
    assertThat(found.problems()).isEmpty();
    return found.gpus();
  }

  private static List<VerifiedNode> controlNodes(SimulatedDeviceRoot sim) {
    return ((ControlNodeStatus.Complete) new ControlNodeCheck(sim.root()).check()).nodes();
  }

  @Test
  void writesOneValidSpecPerClaimWithTheGpuAndEveryControlNodeAndRemovesIt() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    var claim = new ClaimRef("7f3c0d2e-1111-4222-8333-444455556666", "train-a");
    var names = writer.write(claim, gpus(sim), controlNodes(sim));
    assertThat(names)
        .containsExactly(
            "quartermaster.dev/gpu=7f3c0d2e-1111-4222-8333-444455556666-gpu-0",
            "quartermaster.dev/gpu=7f3c0d2e-1111-4222-8333-444455556666-gpu-1");
    var file = cdi.resolve("quartermaster.dev-gpu_7f3c0d2e-1111-4222-8333-444455556666.json");
    var spec = JSON.readTree(file.toFile());
    assertThat(CdiSchema.problems(spec)).isEmpty();
    assertThat(spec.path("cdiVersion").asText()).isEqualTo("0.5.0"); // hostPath under a device root
    var node = spec.path("devices").get(0).path("containerEdits").path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia0");
    assertThat(node.path("hostPath").asText()).isEqualTo(root.resolve("dev/nvidia0").toString());
    assertThat(node.path("type").asText()).isEqualTo("c");
    var gpu0 = sim.standIn("nvidia0");
    assertThat(new DeviceNumber(node.path("major").asLong(), node.path("minor").asLong()))
        .isEqualTo(gpu0);
    // The control nodes, once, at spec level: applied whenever any device of the spec is asked for.
    var shared = spec.path("containerEdits").path("deviceNodes");
    assertThat(shared)
        .extracting(n -> n.path("path").asText())
        .containsExactly(
            "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset");
    for (var n : shared) {
      assertThat(n.path("type").asText()).isEqualTo("c");
      var name = n.path("path").asText().substring("/dev/".length());
      assertThat(new DeviceNumber(n.path("major").asLong(), n.path("minor").asLong()))
          .isEqualTo(sim.standIn(name));
    }
    assertThat(writer.claimUids()).containsExactly(claim.uid());
    try (var files = Files.list(cdi)) {
      assertThat(files).containsExactly(file); // no temp file left behind
    }
    writer.remove(claim.uid());
    writer.remove(claim.uid()); // idempotent
    assertThat(file).doesNotExist();
    assertThat(writer.claimUids()).isEmpty();
  }

  @Test
  void aRemovedSpecsFileIsTheNextSpecsWithoutEverBeingReadAsASpec() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    var gpu = gpus(sim).subList(0, 1);
    var a = writer.write(new ClaimRef("uid-a", "a"), gpu, controlNodes(sim));
    var fileA = cdi.resolve("quartermaster.dev-gpu_uid-a.json");
    var inode = Files.readAttributes(fileA, BasicFileAttributes.class).fileKey();
    writer.remove("uid-a");
    assertThat(writer.claimUids()).isEmpty();
    assertThatThrownBy(() -> new CdiResolver(List.of(cdi)).resolve(a))
        .isInstanceOf(CdiResolver.UnresolvableException.class);

    var b = writer.write(new ClaimRef("uid-b", "b"), gpu, controlNodes(sim));
    var fileB = cdi.resolve("quartermaster.dev-gpu_uid-b.json");
    assertThat(Files.readAttributes(fileB, BasicFileAttributes.class).fileKey())
        .isEqualTo(inode); // no file created
    try (var files = Files.list(cdi)) {
      assertThat(files).containsExactly(fileB);
    }
    assertThat(new CdiResolver(List.of(cdi)).resolve(b).env())
        .contains("QUARTERMASTER_GPU_0_CLAIM_UID=uid-b");
    assertThat(Files.readString(fileB)).doesNotContain("uid-a");
  }

  @Test
  void sparesAreBoundedAndTheRestAreDeleted() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    for (int i = 0; i < CdiSpecWriter.SPARES + 5; i++) {
      writer.write(new ClaimRef("uid-" + i, "c" + i), gpus(sim).subList(0, 1), controlNodes(sim));
    }
    for (int i = 0; i < CdiSpecWriter.SPARES + 5; i++) {
      writer.remove("uid-" + i);
    }
    try (var files = Files.list(cdi)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .hasSize(CdiSpecWriter.SPARES)
          .allMatch(n -> n.startsWith(".spare-"));
    }
    assertThat(writer.claimUids()).isEmpty();
  }

  @Test
  void whatTheWriterWritesTheResolverReadsBack() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    var names =
        writer.write(new ClaimRef("abc-1", "c"), gpus(sim).subList(0, 1), controlNodes(sim));
    var edits = new CdiResolver(List.of(cdi)).resolve(names);
    assertThat(edits.deviceNodes())
        .extracting(CdiDeviceNode::path)
        .containsExactly(
            "/dev/nvidiactl",
            "/dev/nvidia-uvm",
            "/dev/nvidia-uvm-tools",
            "/dev/nvidia-modeset",
            "/dev/nvidia0");
    assertThat(edits.env())
        .containsExactly(
            "QUARTERMASTER_GPU_0_UUID=" + gpus(sim).getFirst().uuid(),
            "QUARTERMASTER_GPU_0_CLAIM_UID=abc-1");
    assertThat(edits.composedEnv())
        .contains(
            "QUARTERMASTER_CLAIM_UID=abc-1",
            "QUARTERMASTER_CLAIM_UIDS=abc-1",
            "QUARTERMASTER_GPU_UUIDS=" + gpus(sim).getFirst().uuid());
  }

  @Test
  void twoClaimsOnReplicasOfOneGpuEachGetTheGpuNodeAndTheirOwnKeys() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    var gpu = gpus(sim).getFirst();
    var a = asReplica(gpu, 0);
    var b = asReplica(gpu, 3);
    var namesA = writer.write(new ClaimRef("abc-1", "a"), List.of(a), controlNodes(sim));
    var namesB = writer.write(new ClaimRef("abc-2", "b"), List.of(b), controlNodes(sim));
    assertThat(namesA).containsExactly("quartermaster.dev/gpu=abc-1-gpu-0-ts-0");
    var both = new java.util.ArrayList<>(namesA);
    both.addAll(namesB);
    // A task given both (two turns of one GPU) sees the GPU once, and both claims.
    var edits = new CdiResolver(List.of(cdi)).resolve(both);
    assertThat(edits.deviceNodes()).extracting(CdiDeviceNode::path).contains("/dev/nvidia0");
    assertThat(edits.env())
        .containsExactly(
            "QUARTERMASTER_GPU_0_TS_0_UUID=" + gpu.uuid(),
            "QUARTERMASTER_GPU_0_TS_0_CLAIM_UID=abc-1",
            "QUARTERMASTER_GPU_0_TS_3_UUID=" + gpu.uuid(),
            "QUARTERMASTER_GPU_0_TS_3_CLAIM_UID=abc-2");
    assertThat(edits.composedEnv())
        .contains("NVIDIA_VISIBLE_DEVICES=" + gpu.uuid(), "QUARTERMASTER_CLAIM_UIDS=abc-1,abc-2");
  }

  private static DiscoveredGpu asReplica(DiscoveredGpu gpu, int replica) {
    return new DiscoveredGpu(
        gpu.name() + "-ts-" + replica,
        gpu.index(),
        gpu.uuid(),
        gpu.model(),
        gpu.memoryBytes(),
        gpu.minor(),
        gpu.pciBusId(),
        gpu.node());
  }

  @Test
  void usesTheMinimumVersionWhenNoFeatureNeedsMore() throws Exception {
    var node = new VerifiedNode("/dev/nvidia0", Path.of("/dev/nvidia0"), new DeviceNumber(195, 0));
    var gpu =
        new DiscoveredGpu("gpu-0", 0, "GPU-x", "m", OptionalLong.of(1), 0, "0000:18:00.0", node);
    var ctl =
        new VerifiedNode("/dev/nvidiactl", Path.of("/dev/nvidiactl"), new DeviceNumber(195, 255));
    var spec =
        JSON.readTree(CdiSpecWriter.render(new ClaimRef("abc-1", "c"), List.of(gpu), List.of(ctl)));
    assertThat(spec.path("cdiVersion").asText()).isEqualTo("0.3.0");
    assertThat(CdiSchema.problems(spec)).isEmpty();
    // A claim uid starting with a digit makes the device name start with one: 0.5.0.
    var digit =
        JSON.readTree(CdiSpecWriter.render(new ClaimRef("1bc-1", "c"), List.of(gpu), List.of(ctl)));
    assertThat(digit.path("cdiVersion").asText()).isEqualTo("0.5.0");
    assertThat(CdiSchema.problems(digit)).isEmpty();
  }

  @Test
  void aChannelSpecIsValidAndListsEachChannelWithItsOwnNode() throws Exception {
    var sim = SimulatedDeviceRoot.builder(root).gpus(1).channels(4).build();
    var channels = ImexChannels.scan(sim.root()).channels();
    var writer = new CdiSpecWriter(cdi);

    var names =
        writer.write(new ClaimRef("abc-2", "c"), List.of(), channels.subList(1, 3), List.of());

    assertThat(names)
        .containsExactly(
            "quartermaster.dev/channel=abc-2-channel-1",
            "quartermaster.dev/channel=abc-2-channel-2");
    var spec = JSON.readTree(cdi.resolve("quartermaster.dev-channel_abc-2.json").toFile());
    assertThat(CdiSchema.problems(spec)).isEmpty();
    assertThat(spec.path("containerEdits").has("deviceNodes")).as("no GPU control nodes").isFalse();
    var edits = new CdiResolver(List.of(cdi)).resolve(names.subList(1, 2));
    assertThat(edits.deviceNodes())
        .containsExactly(
            new CdiDeviceNode(
                "/dev/nvidia-caps-imex-channels/channel2",
                sim.channelPath(2).toString(),
                "c",
                sim.standIn("nvidia-caps-imex-channels/channel2").major(),
                sim.standIn("nvidia-caps-imex-channels/channel2").minor(),
                "rw"));
    assertThat(writer.claimUids()).containsExactly("abc-2");
    writer.remove("abc-2");
    assertThat(writer.claimUids()).isEmpty();
    assertThatThrownBy(
            () -> writer.write(new ClaimRef("abc-3", "c"), List.of(), List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one device");
  }

  @Test
  void theSchemaCheckCatchesABrokenSpec() throws Exception {
    var broken =
        JSON.readTree(
            "{\"cdiVersion\":\"0.5.0\",\"kind\":\"nokind\",\"devices\":[{\"name\":\"-x\"}]}");
    assertThat(CdiSchema.problems(broken)).hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void unsafeClaimUidsAndDeviceNamesAreRefusedAndNothingIsWritten() throws Exception {
    var sim = sim();
    var writer = new CdiSpecWriter(cdi);
    var good = gpus(sim).getFirst();
    var evil =
        new DiscoveredGpu("../../etc", 0, "u", "m", OptionalLong.empty(), 0, "", good.node());
    assertThatThrownBy(
            () -> writer.write(new ClaimRef("ok-1", "c"), List.of(evil), controlNodes(sim)))
        .isInstanceOf(UnsafeNameException.class)
        .hasMessageContaining("device name '../../etc'");
    for (var uid : List.of("../x", "a/b", "..", "a\0b", "", " x")) {
      assertThatThrownBy(() -> writer.remove(uid)).isInstanceOf(UnsafeNameException.class);
      assertThatThrownBy(() -> writer.specPath("gpu", uid)).isInstanceOf(UnsafeNameException.class);
    }
    try (var files = Files.list(cdi)) {
      assertThat(files).isEmpty();
    }
  }
}
