package dev.quartermaster.kubelet.real;

import dev.quartermaster.csi.grpc.CsiServer;
import dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.quartermaster.kubelet.grpc.DraServices;
import dev.quartermaster.kubelet.grpc.RegistrationService;
import dev.quartermaster.kubelet.grpc.RegistrationState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stands between the kubelet and a DRA plugin (ours or the naive one): registers with the kubelet
 * as the driver, forwards every {@code v1} call to the plugin's socket, and records each claim's
 * answer as it goes back: the kubelet's own view of which claims are prepared, whatever the plugin
 * does inside.
 */
final class RecordingProxy implements AutoCloseable {
  private final List<WireEvent> events = new ArrayList<>();
  private final ManagedChannel channel;
  private final EventLoopGroup group;
  private final CsiServer dra;
  private final CsiServer registration;
  private final RegistrationService registrationService;

  RecordingProxy(String driver, Path pluginSocket, Path proxySocket, Path registrationSocket) {
    group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(pluginSocket.toString()))
            .channelType(EpollDomainSocketChannel.class, DomainSocketAddress.class)
            .eventLoopGroup(group)
            .usePlaintext()
            .build();
    dra = CsiServer.start(proxySocket.toString(), List.of(new Forward()));
    registrationService = new RegistrationService(driver, proxySocket, List.of(DraServices.V1));
    registration = CsiServer.start(registrationSocket.toString(), List.of(registrationService));
  }

  /** Whether the kubelet has registered the driver at this proxy. */
  boolean registered() {
    return registrationService.state() instanceof RegistrationState.Registered;
  }

  /** Every answer so far, in the order the kubelet got them. */
  synchronized List<WireEvent> events() {
    return List.copyOf(events);
  }

  private synchronized void record(WireEvent event) {
    events.add(event);
  }

  private final class Forward extends DRAPluginGrpc.DRAPluginImplBase {
    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request,
        StreamObserver<NodePrepareResourcesResponse> response) {
      try {
        var answer =
            DRAPluginGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .nodePrepareResources(request);
        var now = Instant.now();
        for (var claim : request.getClaimsList()) {
          var one = answer.getClaimsOrDefault(claim.getUid(), null);
          if (one == null) {
            continue;
          }
          if (one.getError().isEmpty()) {
            record(
                new WireEvent.Prepared(
                    now,
                    claim.getUid(),
                    claim.getName(),
                    one.getDevicesList().stream()
                        .map(d -> d.getPoolName() + "/" + d.getDeviceName())
                        .toList()));
          } else {
            record(
                new WireEvent.PrepareRefused(now, claim.getUid(), claim.getName(), one.getError()));
          }
        }
        response.onNext(answer);
        response.onCompleted();
      } catch (RuntimeException e) {
        response.onError(e);
      }
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request,
        StreamObserver<NodeUnprepareResourcesResponse> response) {
      try {
        var answer =
            DRAPluginGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .nodeUnprepareResources(request);
        var now = Instant.now();
        for (var claim : request.getClaimsList()) {
          var one = answer.getClaimsOrDefault(claim.getUid(), null);
          if (one != null && one.getError().isEmpty()) {
            record(new WireEvent.Unprepared(now, claim.getUid()));
          }
        }
        response.onNext(answer);
        response.onCompleted();
      } catch (RuntimeException e) {
        response.onError(e);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    registration.close();
    dra.close();
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
