package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.csi.grpc.CsiServer;
import dev.quartermaster.kubelet.claims.ClaimAllocation;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc;
import dev.quartermaster.kubelet.dra.v1.Device;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A DRA plugin as NVIDIA's first was, kept here only to prove the order tests catch it: prepare
 * writes the claim's CDI spec for whatever devices it was allocated, without asking whether another
 * claim still holds them, and unprepare removes it, remembering nothing (no tombstone). Same wire
 * protocol, devices, CDI writer and claim source as the real plugin; only the ledger is missing.
 */
public final class NaivePlugin implements AutoCloseable {
  private final CsiServer server;
  private final CdiSpecWriter specs;
  private final Path socket;

  private NaivePlugin(CsiServer server, CdiSpecWriter specs, Path socket) {
    this.server = server;
    this.specs = specs;
    this.socket = socket;
  }

  /**
   * Starts one on {@code node}'s devices and claims, with a socket and CDI directory of its own.
   */
  static NaivePlugin start(PluginFixture node, String name) {
    return start(
        node.claims,
        node.config().deviceRoot(),
        node.config().nvml(),
        PluginFixture.NODE,
        node.dir.resolve(name + "-cdi"),
        node.dir.resolve(name + ".sock"));
  }

  /** One serving {@code socket} for the devices under {@code root} of {@code pool}. */
  public static NaivePlugin start(
      ClaimSource claims,
      DeviceRoot root,
      Supplier<NvmlLoad> nvml,
      String pool,
      Path cdiDir,
      Path socket) {
    var tree = new HostDeviceTree(root, nvml, Duration.ofSeconds(2));
    var specs = new CdiSpecWriter(cdiDir);
    var server =
        CsiServer.start(socket.toString(), List.of(new Service(claims, tree, specs, pool)));
    return new NaivePlugin(server, specs, socket);
  }

  KubeletCalls kubelet(PluginFixture node) {
    return node.connect(socket).dra(KubeletClient.Version.V1);
  }

  Set<String> specsOnDisk() {
    try {
      return specs.claimUids();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The socket its DRA service listens on. */
  public Path socket() {
    return socket;
  }

  @Override
  public void close() {
    server.close();
  }

  private static final class Service extends DRAPluginGrpc.DRAPluginImplBase {
    private final ClaimSource claims;
    private final HostDeviceTree tree;
    private final CdiSpecWriter specs;
    private final String pool;

    Service(ClaimSource claims, HostDeviceTree tree, CdiSpecWriter specs, String pool) {
      this.claims = claims;
      this.tree = tree;
      this.specs = specs;
      this.pool = pool;
    }

    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request,
        StreamObserver<NodePrepareResourcesResponse> response) {
      var out = NodePrepareResourcesResponse.newBuilder();
      for (var c : request.getClaimsList()) {
        var claim = new KubeClaim(c.getNamespace(), c.getName(), c.getUid());
        out.putClaims(claim.uid(), prepare(claim));
      }
      response.onNext(out.build());
      response.onCompleted();
    }

    private NodePrepareResourceResponse prepare(KubeClaim claim) {
      var entry = NodePrepareResourceResponse.newBuilder();
      if (!(claims.allocation(claim)
          instanceof ClaimAllocation.Allocated(var devices, var domain))) {
        return entry.setError("not allocated").build();
      }
      var found = Inventory.of(tree.discovery().discover());
      var gpus =
          devices.stream()
              .map(d -> found.gpu(d.device()))
              .flatMap(java.util.Optional::stream)
              .toList();
      var control = (ControlNodeStatus.Complete) tree.checkControlNodes();
      try {
        // No look at who else holds these devices: the bug.
        var ids =
            specs.write(new ClaimRef(claim.uid(), claim.name()), gpus, List.of(), control.nodes());
        for (var gpu : gpus) {
          entry.addDevices(
              Device.newBuilder()
                  .setPoolName(pool)
                  .setDeviceName(gpu.name())
                  .addAllCdiDeviceIds(
                      ids.stream().filter(id -> id.endsWith("-" + gpu.name())).toList()));
        }
      } catch (IOException e) {
        entry.setError(e.getMessage());
      }
      return entry.build();
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request,
        StreamObserver<NodeUnprepareResourcesResponse> response) {
      var out = NodeUnprepareResourcesResponse.newBuilder();
      for (var c : request.getClaimsList()) {
        var entry = NodeUnprepareResourceResponse.newBuilder();
        try {
          specs.remove(c.getUid());
        } catch (IOException e) {
          entry.setError(e.getMessage());
        }
        out.putClaims(c.getUid(), entry.build());
      }
      response.onNext(out.build());
      response.onCompleted();
    }
  }
}
