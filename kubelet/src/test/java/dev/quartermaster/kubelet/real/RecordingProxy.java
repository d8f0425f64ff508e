package dev.quartermaster.kubelet.real;

import com.google.common.util.concurrent.ListenableFuture;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stands between the kubelet and a DRA plugin (ours or the naive one): registers with the kubelet
 * as the driver, forwards every {@code v1} call to the plugin's socket, and records each claim's
 * answer as it goes back: the kubelet's own view of which claims are prepared, whatever the plugin
 * does inside. Each record carries its call's request arrival and answer times, numbered from one
 * counter ({@link CallTimes}), and a call the plugin did not answer is recorded too ({@link
 * WireEvent.CallFailed}). A {@link #onCall hook} runs before, during and after each forwarded call:
 * where the harness kills the plugin.
 */
final class RecordingProxy implements AutoCloseable {
  /** What runs at each point of a forwarded call (the harness's SIGKILL). */
  @FunctionalInterface
  interface Hook {
    void at(KillPoint point);
  }

  private final List<WireEvent> events = new ArrayList<>();
  private final AtomicLong seq = new AtomicLong();
  private volatile Hook hook = point -> {};
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

  /** Runs {@code hook} at every point of every call from now on. */
  void onCall(Hook hook) {
    this.hook = hook;
  }

  /** Every answer so far, in the order they were sent to the kubelet. */
  synchronized List<WireEvent> events() {
    var out = new ArrayList<>(events);
    out.sort(java.util.Comparator.comparingLong(e -> e.times().answerSeq()));
    return List.copyOf(out);
  }

  private synchronized void record(WireEvent event) {
    events.add(event);
  }

  private CallTimes answered(long arrivalSeq, Instant arrived) {
    return new CallTimes(arrivalSeq, arrived, seq.incrementAndGet(), Instant.now());
  }

  /**
   * Forwards {@code request} with {@code call}, running the hook before, during (sent, not yet
   * answered) and after (answered, the kubelet not told yet).
   */
  private <T> T forward(String name, java.util.function.Supplier<ListenableFuture<T>> call)
      throws Exception {
    hook.at(new KillPoint(name, KillPoint.Phase.BEFORE));
    var future = call.get();
    hook.at(new KillPoint(name, KillPoint.Phase.DURING));
    var answer = future.get(60, TimeUnit.SECONDS);
    hook.at(new KillPoint(name, KillPoint.Phase.AFTER));
    return answer;
  }

  private static String failure(Exception e) {
    var cause =
        e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
            ? e.getCause()
            : e;
    return String.valueOf(cause.getMessage());
  }

  private final class Forward extends DRAPluginGrpc.DRAPluginImplBase {
    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request,
        StreamObserver<NodePrepareResourcesResponse> response) {
      var arrivalSeq = seq.incrementAndGet();
      var arrived = Instant.now();
      try {
        var answer =
            forward(
                KillPoint.PREPARE,
                () ->
                    DRAPluginGrpc.newFutureStub(channel)
                        .withDeadlineAfter(60, TimeUnit.SECONDS)
                        .nodePrepareResources(request));
        var now = answered(arrivalSeq, arrived);
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
      } catch (Exception e) {
        var now = answered(arrivalSeq, arrived);
        for (var claim : request.getClaimsList()) {
          record(new WireEvent.CallFailed(now, claim.getUid(), KillPoint.PREPARE, failure(e)));
        }
        response.onError(io.grpc.Status.UNAVAILABLE.withDescription(failure(e)).asException());
      }
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request,
        StreamObserver<NodeUnprepareResourcesResponse> response) {
      var arrivalSeq = seq.incrementAndGet();
      var arrived = Instant.now();
      try {
        var answer =
            forward(
                KillPoint.UNPREPARE,
                () ->
                    DRAPluginGrpc.newFutureStub(channel)
                        .withDeadlineAfter(60, TimeUnit.SECONDS)
                        .nodeUnprepareResources(request));
        var now = answered(arrivalSeq, arrived);
        for (var claim : request.getClaimsList()) {
          var one = answer.getClaimsOrDefault(claim.getUid(), null);
          if (one != null && one.getError().isEmpty()) {
            record(new WireEvent.Unprepared(now, claim.getUid()));
          } else {
            record(
                new WireEvent.CallFailed(
                    now,
                    claim.getUid(),
                    KillPoint.UNPREPARE,
                    one == null ? "no entry in the answer" : one.getError()));
          }
        }
        response.onNext(answer);
        response.onCompleted();
      } catch (Exception e) {
        var now = answered(arrivalSeq, arrived);
        for (var claim : request.getClaimsList()) {
          record(new WireEvent.CallFailed(now, claim.getUid(), KillPoint.UNPREPARE, failure(e)));
        }
        response.onError(io.grpc.Status.UNAVAILABLE.withDescription(failure(e)).asException());
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
