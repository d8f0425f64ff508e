package dev.quartermaster.csi.hostpath;

import static dev.quartermaster.csi.grpc.Calls.await;
import static dev.quartermaster.csi.grpc.Calls.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.Calls;
import dev.quartermaster.csi.grpc.Calls.RawChannel;
import dev.quartermaster.csi.grpc.CsiProtos;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.v1.CapacityRange;
import dev.quartermaster.csi.v1.ControllerGrpc;
import dev.quartermaster.csi.v1.ControllerPublishVolumeRequest;
import dev.quartermaster.csi.v1.CreateVolumeRequest;
import dev.quartermaster.csi.v1.GetCapacityRequest;
import dev.quartermaster.csi.v1.ListVolumesRequest;
import dev.quartermaster.csi.v1.NodeGrpc;
import dev.quartermaster.csi.v1.NodePublishVolumeRequest;
import dev.quartermaster.csi.v1.ValidateVolumeCapabilitiesRequest;
import dev.quartermaster.csi.v1.VolumeCapability;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hostpath plugin driven over a real Unix socket by the gRPC client, checked against the CSI
 * spec.
 */
@Timeout(120)
class HostpathGrpcTest {
  private static final long MIB = 1L << 20;
  private static final AccessMode SNW = AccessMode.SingleNodeWriter;

  private final Path dir = Calls.shortTempDir();
  private final Path state = dir.resolve("state");
  private final List<AutoCloseable> closing = new ArrayList<>();
  private HostpathServer server;
  private CsiPlugin client;

  @AfterEach
  void tearDown() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
    Calls.deleteTree(dir);
  }

  private HostpathConfig config() {
    return HostpathConfig.of("n1", state).withCapacity(10 * MIB);
  }

  private void start(HostpathConfig config) {
    server = HostpathServer.start(config, "unix://" + dir.resolve("csi.sock"), Optional.empty());
    closing.add(server);
    client = GrpcCsiPlugin.open(server.endpoint(), Duration.ofSeconds(20));
    closing.add(client);
  }

  private void stop() {
    client.close();
    server.close();
    closing.remove(client);
    closing.remove(server);
  }

  private RawChannel raw() {
    var raw = RawChannel.open(dir.resolve("csi.sock"));
    closing.add(raw);
    return raw;
  }

  private static StatusRuntimeException rawFailure(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("expected the call to fail");
  }

  private String path(String name) {
    return dir.resolve(name).toString();
  }

  @Test
  void identityAndCapabilities() {
    start(config());

    var info = await(client.pluginInfo());
    assertThat(info.name()).isEqualTo("hostpath.csi.quartermaster.dev");
    assertThat(info.vendorVersion()).isNotEmpty();
    assertThat(info.capabilities())
        .containsExactlyInAnyOrder(
            Capability.ControllerService,
            Capability.CreateDeleteVolume,
            Capability.PublishUnpublishVolume,
            Capability.ListVolumes,
            Capability.GetCapacity,
            Capability.StageUnstageVolume);
    assertThat(await(client.probe())).isTrue();
    assertThat(await(client.nodeInfo()).nodeId()).isEqualTo("n1");
    assertThat(await(client.nodeInfo()).maxVolumesPerNode()).isEqualTo(16);
  }

  @Test
  void controllerOnlyAndNodeOnlyServeTheirPart() {
    start(config().withRoles(true, false));
    assertThat(await(client.pluginInfo()).capabilities())
        .contains(Capability.ControllerService)
        .doesNotContain(Capability.StageUnstageVolume);
    assertThat(failure(client.nodeInfo()).code()).isEqualTo(CsiCode.UNIMPLEMENTED);
    stop();

    start(config().withRoles(false, true));
    assertThat(await(client.pluginInfo()).capabilities())
        .containsExactly(Capability.StageUnstageVolume);
    assertThat(failure(client.createVolume("v", MIB, SNW, Map.of())).code())
        .isEqualTo(CsiCode.UNIMPLEMENTED);
  }

  @Test
  void createVolumeIsIdempotentByNameAndRefusesIncompatibleRepeats() {
    start(config());

    var first = await(client.createVolume("v1", 2 * MIB, SNW, Map.of("k", "v")));
    var again = await(client.createVolume("v1", 2 * MIB, SNW, Map.of("k", "v")));
    assertThat(again).isEqualTo(first);
    assertThat(first.capacityBytes()).isEqualTo(2 * MIB);
    assertThat(Path.of(first.context().get("path")))
        .isDirectory()
        .isEqualTo(state.resolve("volumes/v1"));
    // A smaller request is satisfied by the existing volume.
    assertThat(await(client.createVolume("v1", MIB, SNW, Map.of("k", "v")))).isEqualTo(first);

    assertThat(failure(client.createVolume("v1", 3 * MIB, SNW, Map.of("k", "v"))).code())
        .isEqualTo(CsiCode.ALREADY_EXISTS);
    assertThat(
            failure(
                    client.createVolume(
                        "v1", 2 * MIB, AccessMode.MultiNodeReaderOnly, Map.of("k", "v")))
                .code())
        .isEqualTo(CsiCode.ALREADY_EXISTS);
    assertThat(failure(client.createVolume("v1", 2 * MIB, SNW, Map.of("k", "other"))).code())
        .isEqualTo(CsiCode.ALREADY_EXISTS);
    // Only one volume's worth was accounted.
    assertThat(await(client.capacity())).isEqualTo(8 * MIB);
  }

  @Test
  void createVolumeArgumentErrors() {
    start(config());

    var unsupported =
        failure(client.createVolume("v", MIB, AccessMode.MultiNodeMultiWriter, Map.of()));
    assertThat(unsupported.code()).isEqualTo(CsiCode.INVALID_ARGUMENT);
    assertThat(unsupported.call()).isEqualTo(CsiCall.CreateVolume);
    assertThat(unsupported.getMessage()).contains("MultiNodeMultiWriter");

    var noName = failure(client.createVolume("", MIB, SNW, Map.of()));
    assertThat(noName.code()).isEqualTo(CsiCode.INVALID_ARGUMENT);
    assertThat(noName.getMessage()).contains("name is required");

    for (var escaping : List.of("..", ".", "a/b", "../x", "/abs")) {
      var e = failure(client.createVolume(escaping, MIB, SNW, Map.of()));
      assertThat(e.code()).as(escaping).isEqualTo(CsiCode.INVALID_ARGUMENT);
    }
    assertThat(failure(client.deleteVolume("../../etc")).code())
        .isEqualTo(CsiCode.INVALID_ARGUMENT);
    assertThat(dir.resolve("x")).doesNotExist();

    try (var raw = raw()) {
      var controller = ControllerGrpc.newBlockingStub(raw.channel());
      var noCaps =
          rawFailure(
              () -> controller.createVolume(CreateVolumeRequest.newBuilder().setName("v").build()));
      assertThat(noCaps.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(noCaps.getStatus().getDescription()).contains("volume_capabilities");

      var block =
          rawFailure(
              () ->
                  controller.createVolume(
                      CreateVolumeRequest.newBuilder()
                          .setName("v")
                          .addVolumeCapabilities(
                              VolumeCapability.newBuilder()
                                  .setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                                  .setAccessMode(
                                      VolumeCapability.AccessMode.newBuilder()
                                          .setMode(
                                              VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)))
                          .build()));
      assertThat(block.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

      var alphaMode =
          rawFailure(
              () ->
                  controller.createVolume(
                      CreateVolumeRequest.newBuilder()
                          .setName("v")
                          .addVolumeCapabilities(
                              VolumeCapability.newBuilder()
                                  .setMount(VolumeCapability.MountVolume.getDefaultInstance())
                                  .setAccessMode(
                                      VolumeCapability.AccessMode.newBuilder()
                                          .setMode(
                                              VolumeCapability.AccessMode.Mode
                                                  .SINGLE_NODE_MULTI_WRITER)))
                          .build()));
      assertThat(alphaMode.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(alphaMode.getStatus().getDescription())
          .contains("volume_capabilities[0].access_mode");

      var inverted =
          rawFailure(
              () ->
                  controller.createVolume(
                      CreateVolumeRequest.newBuilder()
                          .setName("v")
                          .setCapacityRange(
                              CapacityRange.newBuilder()
                                  .setRequiredBytes(2 * MIB)
                                  .setLimitBytes(MIB))
                          .addVolumeCapabilities(CsiProtos.mount(SNW))
                          .build()));
      assertThat(inverted.getStatus().getCode()).isEqualTo(Status.Code.OUT_OF_RANGE);
    }
  }

  @Test
  void capacityIsAccountedAgainstTheTotal() {
    start(config());

    assertThat(await(client.capacity())).isEqualTo(10 * MIB);
    await(client.createVolume("a", 6 * MIB, SNW, Map.of()));
    assertThat(await(client.capacity())).isEqualTo(4 * MIB);

    var exhausted = failure(client.createVolume("b", 6 * MIB, SNW, Map.of()));
    assertThat(exhausted.code()).isEqualTo(CsiCode.RESOURCE_EXHAUSTED);
    var neverFits = failure(client.createVolume("c", 11 * MIB, SNW, Map.of()));
    assertThat(neverFits.code()).isEqualTo(CsiCode.OUT_OF_RANGE);

    await(client.createVolume("b", 4 * MIB, SNW, Map.of()));
    assertThat(await(client.capacity())).isZero();

    await(client.deleteVolume("a"));
    assertThat(await(client.capacity())).isEqualTo(6 * MIB);
    assertThat(state.resolve("volumes/a")).doesNotExist();
  }

  @Test
  void deleteVolumeIsIdempotentAndRefusesPublishedVolumes() {
    start(config());

    await(client.deleteVolume("never-existed"));
    await(client.createVolume("v", MIB, SNW, Map.of()));
    await(client.controllerPublish("v", "n1", SNW, false));

    var inUse = failure(client.deleteVolume("v"));
    assertThat(inUse.code()).isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(inUse.getMessage()).contains("n1");

    await(client.controllerUnpublish("v", "n1"));
    await(client.deleteVolume("v"));
    await(client.deleteVolume("v"));
    assertThat(state.resolve("volumes/v")).doesNotExist();
  }

  @Test
  void controllerPublishBookkeeping() {
    start(config().withDeviceSlots(2));
    // A second node plugin on the same state directory makes node n2 known.
    HostpathPlugin.open(HostpathConfig.of("n2", state).withRoles(false, true));

    await(client.createVolume("a", MIB, SNW, Map.of()));
    await(client.createVolume("b", MIB, SNW, Map.of()));
    await(client.createVolume("c", MIB, SNW, Map.of()));
    await(client.createVolume("ro", MIB, AccessMode.MultiNodeReaderOnly, Map.of()));

    var a = await(client.controllerPublish("a", "n1", SNW, false));
    assertThat(a).containsEntry("device", "/dev/xvdb");
    assertThat(await(client.controllerPublish("a", "n1", SNW, false))).isEqualTo(a);
    assertThat(await(client.controllerPublish("b", "n1", SNW, false)))
        .containsEntry("device", "/dev/xvdc");

    var full = failure(client.controllerPublish("c", "n1", SNW, false));
    assertThat(full.code()).isEqualTo(CsiCode.RESOURCE_EXHAUSTED);
    // Another node has its own slots.
    assertThat(await(client.controllerPublish("c", "n2", SNW, false)))
        .containsEntry("device", "/dev/xvdb");

    var elsewhere = failure(client.controllerPublish("a", "n2", SNW, false));
    assertThat(elsewhere.code()).isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(elsewhere.getMessage()).contains("n1");

    var incompatible = failure(client.controllerPublish("a", "n1", SNW, true));
    assertThat(incompatible.code()).isEqualTo(CsiCode.ALREADY_EXISTS);

    assertThat(failure(client.controllerPublish("nope", "n1", SNW, false)).code())
        .isEqualTo(CsiCode.NOT_FOUND);
    assertThat(failure(client.controllerPublish("a", "ghost", SNW, false)).code())
        .isEqualTo(CsiCode.NOT_FOUND);
    assertThat(failure(client.controllerPublish("", "n1", SNW, false)).getMessage())
        .contains("volume_id is required");
    assertThat(failure(client.controllerPublish("a", "", SNW, false)).getMessage())
        .contains("node_id is required");

    // Multi-node reader-only goes to both nodes.
    await(client.controllerUnpublish("b", "n1"));
    await(client.controllerPublish("ro", "n1", AccessMode.MultiNodeReaderOnly, true));
    await(client.controllerPublish("ro", "n2", AccessMode.MultiNodeReaderOnly, true));

    // The freed slot is reused; unpublish of what is not published is success.
    await(client.controllerUnpublish("a", "n1"));
    await(client.controllerUnpublish("a", "n1"));
    await(client.controllerUnpublish("a", "ghost"));
    await(client.controllerUnpublish("nope", "n1"));
    // n2's two slots hold c and ro; an empty node id unpublishes ro from every node.
    assertThat(failure(client.controllerPublish("a", "n2", SNW, false)).code())
        .isEqualTo(CsiCode.RESOURCE_EXHAUSTED);
    await(client.controllerUnpublish("ro", ""));
    assertThat(await(client.controllerPublish("a", "n2", SNW, false)))
        .containsEntry("device", "/dev/xvdc");

    try (var raw = raw()) {
      var controller = ControllerGrpc.newBlockingStub(raw.channel());
      var noCap =
          rawFailure(
              () ->
                  controller.controllerPublishVolume(
                      ControllerPublishVolumeRequest.newBuilder()
                          .setVolumeId("b")
                          .setNodeId("n1")
                          .build()));
      assertThat(noCap.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(noCap.getStatus().getDescription()).contains("volume_capability");

      var list = controller.listVolumes(ListVolumesRequest.getDefaultInstance());
      var published = new TreeMap<String, List<String>>();
      list.getEntriesList()
          .forEach(
              e ->
                  published.put(
                      e.getVolume().getVolumeId(), e.getStatus().getPublishedNodeIdsList()));
      assertThat(published)
          .containsEntry("a", List.of("n2"))
          .containsEntry("b", List.of())
          .containsEntry("c", List.of("n2"))
          .containsEntry("ro", List.of());

      var page = controller.listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(3).build());
      assertThat(page.getEntriesCount()).isEqualTo(3);
      var rest =
          controller.listVolumes(
              ListVolumesRequest.newBuilder().setStartingToken(page.getNextToken()).build());
      assertThat(rest.getEntriesCount()).isEqualTo(1);
      assertThat(rest.getNextToken()).isEmpty();
      var forBlock =
          controller.getCapacity(
              GetCapacityRequest.newBuilder()
                  .addVolumeCapabilities(
                      VolumeCapability.newBuilder()
                          .setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                          .setAccessMode(
                              VolumeCapability.AccessMode.newBuilder()
                                  .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)))
                  .build());
      assertThat(forBlock.getAvailableCapacity()).isZero();
      var forMount =
          controller.getCapacity(
              GetCapacityRequest.newBuilder().addVolumeCapabilities(CsiProtos.mount(SNW)).build());
      assertThat(forMount.getAvailableCapacity()).isEqualTo(6 * MIB);
      assertThat(forMount.getMaximumVolumeSize().getValue()).isEqualTo(10 * MIB);

      var badToken =
          rawFailure(
              () ->
                  controller.listVolumes(
                      ListVolumesRequest.newBuilder().setStartingToken("zz").build()));
      assertThat(badToken.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);

      var confirmed =
          controller.validateVolumeCapabilities(
              ValidateVolumeCapabilitiesRequest.newBuilder()
                  .setVolumeId("a")
                  .addVolumeCapabilities(CsiProtos.mount(SNW))
                  .build());
      assertThat(confirmed.hasConfirmed()).isTrue();
      var refused =
          controller.validateVolumeCapabilities(
              ValidateVolumeCapabilitiesRequest.newBuilder()
                  .setVolumeId("a")
                  .addVolumeCapabilities(CsiProtos.mount(AccessMode.MultiNodeReaderOnly))
                  .build());
      assertThat(refused.hasConfirmed()).isFalse();
      assertThat(refused.getMessage()).isNotEmpty();
      var unknown =
          rawFailure(
              () ->
                  controller.validateVolumeCapabilities(
                      ValidateVolumeCapabilitiesRequest.newBuilder()
                          .setVolumeId("nope")
                          .addVolumeCapabilities(CsiProtos.mount(SNW))
                          .build()));
      assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }
  }

  @Test
  void nodeStageAndPublishFollowTheSpec() throws Exception {
    start(config());
    await(client.createVolume("v", MIB, SNW, Map.of()));
    var context = await(client.controllerPublish("v", "n1", SNW, false));
    var staging = path("kubelet/staging/v");
    var target = path("kubelet/pods/p1/v");
    Files.createDirectories(
        Path.of(staging)); // as a CO does; the plugin replaces the empty directory

    var early = failure(client.nodePublish("v", context, staging, target, SNW, false));
    assertThat(early.code()).isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(early.call()).isEqualTo(CsiCall.NodePublishVolume);

    await(client.nodeStage("v", context, staging, SNW));
    await(client.nodeStage("v", context, staging, SNW));
    assertThat(Path.of(staging).toRealPath()).isEqualTo(state.resolve("volumes/v").toRealPath());
    assertThat(failure(client.nodeStage("v", context, path("elsewhere"), SNW)).code())
        .isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(failure(client.nodeStage("nope", context, path("s2"), SNW)).code())
        .isEqualTo(CsiCode.NOT_FOUND);
    assertThat(failure(client.nodeStage("v", context, "", SNW)).getMessage())
        .contains("staging_target_path is required");

    var wrongStaging =
        failure(client.nodePublish("v", context, path("other-staging"), target, SNW, false));
    assertThat(wrongStaging.code()).isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(wrongStaging.getMessage()).contains(staging);
    var noStaging = failure(client.nodePublish("v", context, "", target, SNW, false));
    assertThat(noStaging.code()).isEqualTo(CsiCode.INVALID_ARGUMENT);
    assertThat(noStaging.getMessage()).contains("staging_target_path");
    assertThat(failure(client.nodePublish("v", context, staging, "", SNW, false)).getMessage())
        .contains("target_path is required");

    await(client.nodePublish("v", context, staging, target, SNW, false));
    await(client.nodePublish("v", context, staging, target, SNW, false));
    Files.writeString(Path.of(target, "data.txt"), "hello");
    assertThat(state.resolve("volumes/v/data.txt")).hasContent("hello");
    assertThat(failure(client.nodePublish("v", context, staging, target, SNW, true)).code())
        .isEqualTo(CsiCode.ALREADY_EXISTS);

    var readOnlyTarget = path("kubelet/pods/p2/v");
    await(client.nodePublish("v", context, staging, readOnlyTarget, SNW, true));
    assertThat(server.plugin().publishedReadOnly(readOnlyTarget)).isTrue();
    assertThat(Path.of(readOnlyTarget + HostpathNode.READONLY_MARKER)).exists();

    // Unstage while published is refused; unpublish is idempotent and removes the target.
    assertThat(failure(client.nodeUnstage("v", staging)).code())
        .isEqualTo(CsiCode.FAILED_PRECONDITION);
    await(client.nodeUnpublish("v", target));
    await(client.nodeUnpublish("v", target));
    await(client.nodeUnpublish("v", readOnlyTarget));
    assertThat(Path.of(target)).doesNotExist();
    assertThat(Path.of(readOnlyTarget + HostpathNode.READONLY_MARKER)).doesNotExist();
    await(client.nodeUnstage("v", staging));
    await(client.nodeUnstage("v", staging));
    assertThat(Path.of(staging)).doesNotExist();
    assertThat(state.resolve("volumes/v/data.txt")).hasContent("hello");

    try (var raw = raw()) {
      var node = NodeGrpc.newBlockingStub(raw.channel());
      var noCap =
          rawFailure(
              () ->
                  node.nodePublishVolume(
                      NodePublishVolumeRequest.newBuilder()
                          .setVolumeId("v")
                          .setStagingTargetPath(staging)
                          .setTargetPath(target)
                          .build()));
      assertThat(noCap.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(noCap.getStatus().getDescription()).contains("volume_capability");
    }
  }

  @Test
  void aRestartedPluginRemembersVolumesAttachmentsAndStaging() {
    start(config());
    await(client.createVolume("v", 3 * MIB, SNW, Map.of()));
    var context = await(client.controllerPublish("v", "n1", SNW, false));
    var staging = path("staging/v");
    await(client.nodeStage("v", context, staging, SNW));
    stop();

    start(config());
    assertThat(await(client.capacity())).isEqualTo(7 * MIB);
    assertThat(await(client.controllerPublish("v", "n1", SNW, false))).isEqualTo(context);
    assertThat(failure(client.deleteVolume("v")).code()).isEqualTo(CsiCode.FAILED_PRECONDITION);
    // Staging was remembered: publish needs no new stage.
    await(client.nodePublish("v", context, staging, path("target/v"), SNW, false));
    assertThat(
            failure(
                    client.nodePublish(
                        "v", context, path("staging/other"), path("target/w"), SNW, false))
                .code())
        .isEqualTo(CsiCode.FAILED_PRECONDITION);
  }

  @Test
  void aDamagedStateFileIsALoudErrorNamingIt() throws Exception {
    start(config());
    await(client.createVolume("v", MIB, SNW, Map.of()));
    stop();
    var file = state.resolve("controller.json");
    Files.writeString(file, "{\"volumes\": {\"v\": {\"id\": \"v\", \"capac");

    assertThatThrownBy(() -> start(config()))
        .isInstanceOf(DamagedStateException.class)
        .hasMessageContaining(file.toString());
    assertThat(Files.readString(file)).startsWith("{\"volumes\""); // left for a person to look at

    Files.writeString(state.resolve("node-n1.json"), "not json");
    assertThatThrownBy(
            () -> HostpathPlugin.open(HostpathConfig.of("n1", state).withRoles(false, true)))
        .isInstanceOf(DamagedStateException.class)
        .hasMessageContaining(state.resolve("node-n1.json").toString());
  }

  @Test
  void aStaleSocketFileIsRemovedAtStart() throws Exception {
    var socket = dir.resolve("csi.sock");
    try (var old = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      old.bind(UnixDomainSocketAddress.of(socket));
    }
    assertThat(socket).exists(); // a dead plugin's socket

    start(config());
    assertThat(await(client.probe())).isTrue();
    stop();
    assertThat(socket).doesNotExist();

    Files.writeString(socket, "not a socket");
    assertThatThrownBy(() -> start(config())).hasMessageContaining("not a socket");
  }
}
