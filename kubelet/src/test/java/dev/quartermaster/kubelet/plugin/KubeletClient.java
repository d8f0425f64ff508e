package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.registration.v1.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC client over a real Unix socket, as the kubelet connects: the registration stub, and the
 * DRA calls in either version. The deadline only keeps a broken plugin from hanging the test.
 */
final class KubeletClient implements AutoCloseable {
  private static final long DEADLINE_SECONDS = 60;

  /** Which DRA API version the kubelet speaks. */
  enum Version {
    V1,
    V1BETA1
  }

  private final ManagedChannel channel;
  private final EventLoopGroup group;

  private KubeletClient(ManagedChannel channel, EventLoopGroup group) {
    this.channel = channel;
    this.group = group;
  }

  static KubeletClient connect(Path socket) {
    var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    var channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollDomainSocketChannel.class, DomainSocketAddress.class)
            .eventLoopGroup(group)
            .usePlaintext()
            .directExecutor()
            .build();
    return new KubeletClient(channel, group);
  }

  ManagedChannel channel() {
    return channel;
  }

  RegistrationGrpc.RegistrationBlockingStub registration() {
    return RegistrationGrpc.newBlockingStub(channel)
        .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  KubeletCalls dra(Version version) {
    return switch (version) {
      case V1 -> new V1(channel);
      case V1BETA1 -> new V1beta1(channel);
    };
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private record V1(ManagedChannel channel) implements KubeletCalls {
    private dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc.DRAPluginBlockingStub stub() {
      return dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    private static dev.quartermaster.kubelet.dra.v1.Claim wire(KubeClaim c) {
      return dev.quartermaster.kubelet.dra.v1.Claim.newBuilder()
          .setNamespace(c.namespace())
          .setName(c.name())
          .setUid(c.uid())
          .build();
    }

    @Override
    public PrepareAnswer prepare(KubeClaim claim) {
      var response =
          stub()
              .nodePrepareResources(
                  dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest.newBuilder()
                      .addClaims(wire(claim))
                      .build());
      var entry = response.getClaimsOrThrow(claim.uid());
      return new PrepareAnswer(
          entry.getError(),
          entry.getDevicesList().stream()
              .map(
                  d ->
                      new WireDevice(
                          d.getPoolName(),
                          d.getDeviceName(),
                          d.getRequestNamesList(),
                          d.getCdiDeviceIdsList()))
              .toList());
    }

    @Override
    public String unprepare(KubeClaim claim) {
      return stub()
          .nodeUnprepareResources(
              dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesRequest.newBuilder()
                  .addClaims(wire(claim))
                  .build())
          .getClaimsOrThrow(claim.uid())
          .getError();
    }
  }

  private record V1beta1(ManagedChannel channel) implements KubeletCalls {
    private dev.quartermaster.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub stub() {
      return dev.quartermaster.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    private static dev.quartermaster.kubelet.dra.v1beta1.Claim wire(KubeClaim c) {
      return dev.quartermaster.kubelet.dra.v1beta1.Claim.newBuilder()
          .setNamespace(c.namespace())
          .setName(c.name())
          .setUid(c.uid())
          .build();
    }

    @Override
    public PrepareAnswer prepare(KubeClaim claim) {
      var response =
          stub()
              .nodePrepareResources(
                  dev.quartermaster.kubelet.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
                      .addClaims(wire(claim))
                      .build());
      var entry = response.getClaimsOrThrow(claim.uid());
      return new PrepareAnswer(
          entry.getError(),
          entry.getDevicesList().stream()
              .map(
                  d ->
                      new WireDevice(
                          d.getPoolName(),
                          d.getDeviceName(),
                          d.getRequestNamesList(),
                          d.getCdiDeviceIdsList()))
              .toList());
    }

    @Override
    public String unprepare(KubeClaim claim) {
      return stub()
          .nodeUnprepareResources(
              dev.quartermaster.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
                  .addClaims(wire(claim))
                  .build())
          .getClaimsOrThrow(claim.uid())
          .getError();
    }
  }
}
