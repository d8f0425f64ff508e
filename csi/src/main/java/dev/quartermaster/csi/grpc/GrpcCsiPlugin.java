package dev.quartermaster.csi.grpc;

import com.google.common.util.concurrent.ListenableFuture;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import dev.quartermaster.csi.v1.CapacityRange;
import dev.quartermaster.csi.v1.ControllerGetCapabilitiesRequest;
import dev.quartermaster.csi.v1.ControllerGrpc;
import dev.quartermaster.csi.v1.ControllerPublishVolumeRequest;
import dev.quartermaster.csi.v1.ControllerServiceCapability;
import dev.quartermaster.csi.v1.ControllerUnpublishVolumeRequest;
import dev.quartermaster.csi.v1.CreateVolumeRequest;
import dev.quartermaster.csi.v1.DeleteVolumeRequest;
import dev.quartermaster.csi.v1.GetCapacityRequest;
import dev.quartermaster.csi.v1.GetPluginCapabilitiesRequest;
import dev.quartermaster.csi.v1.GetPluginInfoRequest;
import dev.quartermaster.csi.v1.IdentityGrpc;
import dev.quartermaster.csi.v1.NodeGetCapabilitiesRequest;
import dev.quartermaster.csi.v1.NodeGetInfoRequest;
import dev.quartermaster.csi.v1.NodeGrpc;
import dev.quartermaster.csi.v1.NodePublishVolumeRequest;
import dev.quartermaster.csi.v1.NodeServiceCapability;
import dev.quartermaster.csi.v1.NodeStageVolumeRequest;
import dev.quartermaster.csi.v1.NodeUnpublishVolumeRequest;
import dev.quartermaster.csi.v1.NodeUnstageVolumeRequest;
import dev.quartermaster.csi.v1.PluginCapability;
import dev.quartermaster.csi.v1.ProbeRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.AbstractStub;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A CSI plugin reached over gRPC on a Unix socket. Every call carries {@code callDeadline}, so a
 * plugin that hangs (or answers with something that is not HTTP/2) fails the call with
 * DEADLINE_EXCEEDED, or the transport's code, instead of holding it forever. A failed call
 * completes with a {@link CsiException} naming the call and the gRPC code.
 *
 * <p>The plugin's access modes are not something CSI lets it say, so {@link
 * PluginInfo#accessModes()} is empty ("assume all").
 */
@OutsideEnv("a gRPC client's calls on a real Unix socket")
public final class GrpcCsiPlugin implements CsiPlugin {

  /**
   * Where a call's future completes: a fresh virtual thread, so that whatever the caller chains on
   * it never runs on (and never blocks) Netty's event loop. Needs no shutting down.
   */
  private static final Executor CALLBACKS =
      task -> Thread.ofVirtual().name("csi-call-done").start(task);

  private final ManagedChannel channel;
  private final EventLoopGroup group;
  private final Duration deadline;

  private GrpcCsiPlugin(ManagedChannel channel, EventLoopGroup group, Duration deadline) {
    this.channel = channel;
    this.group = group;
    this.deadline = deadline;
  }

  /**
   * A client for the plugin at {@code endpoint} ({@code unix:///abs/path} or an absolute path). It
   * connects lazily: a plugin not yet listening fails calls with UNAVAILABLE, not this method.
   */
  public static CsiPlugin open(String endpoint, Duration callDeadline) {
    if (callDeadline == null || callDeadline.isNegative() || callDeadline.isZero()) {
      throw new IllegalArgumentException("callDeadline must be positive");
    }
    var socket = Endpoints.socketPath(endpoint);
    NettyLogs.quiet();
    var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    var channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollDomainSocketChannel.class, DomainSocketAddress.class)
            .eventLoopGroup(group)
            .usePlaintext()
            // gRPC's own callbacks only hand the response over to CALLBACKS; no pool needed for
            // them.
            .directExecutor()
            .build();
    return new GrpcCsiPlugin(channel, group, callDeadline);
  }

  @Override
  public CompletionStage<PluginInfo> pluginInfo() {
    var info =
        unary(
            CsiCall.GetPluginInfo,
            IdentityGrpc.newFutureStub(channel),
            s -> s.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()));
    var plugin =
        unary(
            CsiCall.GetPluginCapabilities,
            IdentityGrpc.newFutureStub(channel),
            s -> s.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()));
    return info.thenCombine(
            plugin,
            (i, p) -> {
              var caps = EnumSet.noneOf(Capability.class);
              for (var c : p.getCapabilitiesList()) {
                if (c.hasService()
                    && c.getService().getType()
                        == PluginCapability.Service.Type.CONTROLLER_SERVICE) {
                  caps.add(Capability.ControllerService);
                }
              }
              return new PluginInfo(i.getName(), i.getVendorVersion(), caps, Set.of());
            })
        .thenCompose(
            base -> {
              CompletionStage<Set<Capability>> controller =
                  base.has(Capability.ControllerService)
                      ? unary(
                              CsiCall.ControllerGetCapabilities,
                              ControllerGrpc.newFutureStub(channel),
                              s ->
                                  s.controllerGetCapabilities(
                                      ControllerGetCapabilitiesRequest.getDefaultInstance()))
                          .thenApply(
                              r -> {
                                var caps = EnumSet.noneOf(Capability.class);
                                r.getCapabilitiesList()
                                    .forEach(c -> controllerCapability(c).ifPresent(caps::add));
                                return (Set<Capability>) caps;
                              })
                      : CompletableFuture.completedFuture(Set.of());
              // A controller-only plugin serves no Node service: UNIMPLEMENTED means no node
              // capabilities.
              CompletionStage<Set<Capability>> node =
                  unary(
                          CsiCall.NodeGetCapabilities,
                          NodeGrpc.newFutureStub(channel),
                          s ->
                              s.nodeGetCapabilities(
                                  NodeGetCapabilitiesRequest.getDefaultInstance()))
                      .thenApply(
                          r -> {
                            var caps = EnumSet.noneOf(Capability.class);
                            for (var c : r.getCapabilitiesList()) {
                              if (c.hasRpc()
                                  && c.getRpc().getType()
                                      == NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME) {
                                caps.add(Capability.StageUnstageVolume);
                              }
                            }
                            return (Set<Capability>) caps;
                          })
                      .exceptionallyCompose(
                          t ->
                              CsiException.of(CsiCall.NodeGetCapabilities, t).code()
                                      == CsiCode.UNIMPLEMENTED
                                  ? CompletableFuture.completedFuture(Set.of())
                                  : CompletableFuture.failedFuture(t));
              return controller.thenCombine(
                  node,
                  (c, n) -> {
                    var all = EnumSet.noneOf(Capability.class);
                    all.addAll(base.capabilities());
                    all.addAll(c);
                    all.addAll(n);
                    return new PluginInfo(
                        base.name(), base.vendorVersion(), all, base.accessModes());
                  });
            });
  }

  @Override
  public CompletionStage<Boolean> probe() {
    return unary(
            CsiCall.Probe,
            IdentityGrpc.newFutureStub(channel),
            s -> s.probe(ProbeRequest.getDefaultInstance()))
        // An unset ready means ready (spec).
        .thenApply(r -> !r.hasReady() || r.getReady().getValue());
  }

  @Override
  public CompletionStage<CreatedVolume> createVolume(
      String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
    var request =
        CreateVolumeRequest.newBuilder()
            .setName(name)
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(capacityBytes))
            .addVolumeCapabilities(CsiProtos.mount(mode))
            .putAllParameters(parameters)
            .build();
    return unary(
            CsiCall.CreateVolume,
            ControllerGrpc.newFutureStub(channel),
            s -> s.createVolume(request))
        .thenApply(
            r ->
                new CreatedVolume(
                    r.getVolume().getVolumeId(),
                    r.getVolume().getCapacityBytes(),
                    r.getVolume().getVolumeContextMap()));
  }

  @Override
  public CompletionStage<Void> deleteVolume(String volumeId) {
    var request = DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build();
    return unary(
            CsiCall.DeleteVolume,
            ControllerGrpc.newFutureStub(channel),
            s -> s.deleteVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public CompletionStage<Map<String, String>> controllerPublish(
      String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
    var request =
        ControllerPublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setNodeId(csiNodeId)
            .setVolumeCapability(CsiProtos.mount(mode))
            .setReadonly(readOnly)
            .build();
    return unary(
            CsiCall.ControllerPublishVolume,
            ControllerGrpc.newFutureStub(channel),
            s -> s.controllerPublishVolume(request))
        .thenApply(r -> Map.copyOf(r.getPublishContextMap()));
  }

  @Override
  public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
    var request =
        ControllerUnpublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setNodeId(csiNodeId)
            .build();
    return unary(
            CsiCall.ControllerUnpublishVolume,
            ControllerGrpc.newFutureStub(channel),
            s -> s.controllerUnpublishVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public CompletionStage<Long> capacity() {
    return unary(
            CsiCall.GetCapacity,
            ControllerGrpc.newFutureStub(channel),
            s -> s.getCapacity(GetCapacityRequest.getDefaultInstance()))
        .thenApply(r -> r.getAvailableCapacity());
  }

  @Override
  public CompletionStage<NodeInfo> nodeInfo() {
    return unary(
            CsiCall.NodeGetInfo,
            NodeGrpc.newFutureStub(channel),
            s -> s.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()))
        .thenApply(r -> new NodeInfo(r.getNodeId(), r.getMaxVolumesPerNode()));
  }

  @Override
  public CompletionStage<Void> nodeStage(
      String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
    var request =
        NodeStageVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .putAllPublishContext(publishContext)
            .setStagingTargetPath(stagingPath)
            .setVolumeCapability(CsiProtos.mount(mode))
            .build();
    return unary(
            CsiCall.NodeStageVolume,
            NodeGrpc.newFutureStub(channel),
            s -> s.nodeStageVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
    var request =
        NodeUnstageVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setStagingTargetPath(stagingPath)
            .build();
    return unary(
            CsiCall.NodeUnstageVolume,
            NodeGrpc.newFutureStub(channel),
            s -> s.nodeUnstageVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public CompletionStage<Void> nodePublish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      AccessMode mode,
      boolean readOnly) {
    var request =
        NodePublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .putAllPublishContext(publishContext)
            .setStagingTargetPath(stagingPath)
            .setTargetPath(targetPath)
            .setVolumeCapability(CsiProtos.mount(mode))
            .setReadonly(readOnly)
            .build();
    return unary(
            CsiCall.NodePublishVolume,
            NodeGrpc.newFutureStub(channel),
            s -> s.nodePublishVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
    var request =
        NodeUnpublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setTargetPath(targetPath)
            .build();
    return unary(
            CsiCall.NodeUnpublishVolume,
            NodeGrpc.newFutureStub(channel),
            s -> s.nodeUnpublishVolume(request))
        .thenApply(r -> null);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static Optional<Capability> controllerCapability(ControllerServiceCapability c) {
    if (!c.hasRpc()) {
      return Optional.empty();
    }
    return Optional.ofNullable(
        switch (c.getRpc().getType()) {
          case CREATE_DELETE_VOLUME -> Capability.CreateDeleteVolume;
          case PUBLISH_UNPUBLISH_VOLUME -> Capability.PublishUnpublishVolume;
          case LIST_VOLUMES -> Capability.ListVolumes;
          case GET_CAPACITY -> Capability.GetCapacity;
          default -> null;
        });
  }

  /**
   * One unary call on a fresh stub, under the call deadline; a failure becomes the call's
   * CsiException.
   */
  private <S extends AbstractStub<S>, R> CompletableFuture<R> unary(
      CsiCall call, S stub, Function<S, ListenableFuture<R>> invoke) {
    var result = new CompletableFuture<R>();
    try {
      var future = invoke.apply(stub.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS));
      future.addListener(
          () -> {
            try {
              result.complete(future.get());
            } catch (ExecutionException e) {
              result.completeExceptionally(
                  CsiProtos.fromStatus(call, Status.fromThrowable(e.getCause())));
            } catch (InterruptedException | RuntimeException e) {
              result.completeExceptionally(CsiProtos.fromStatus(call, Status.fromThrowable(e)));
            }
          },
          CALLBACKS);
    } catch (RuntimeException e) {
      result.completeExceptionally(CsiProtos.fromStatus(call, Status.fromThrowable(e)));
    }
    return result;
  }
}
