package dev.quartermaster.kubelet.grpc;

import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.dra.v1.Claim;
import dev.quartermaster.kubelet.dra.v1.DRAPluginGrpc;
import dev.quartermaster.kubelet.dra.v1.Device;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.quartermaster.kubelet.prepare.ClaimPrepareResult;
import dev.quartermaster.kubelet.prepare.ClaimUnprepareResult;
import dev.quartermaster.kubelet.prepare.DraPreparer;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Objects;

/** {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} on a {@link DraPreparer}. */
public final class DraV1Service extends DRAPluginGrpc.DRAPluginImplBase {
  private final DraPreparer preparer;

  public DraV1Service(DraPreparer preparer) {
    this.preparer = Objects.requireNonNull(preparer, "preparer");
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    Calls.answer(response, () -> prepare(request));
  }

  /** The answer to {@code request} (for {@link DraV1beta1Service} too). */
  NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
    var out = NodePrepareResourcesResponse.newBuilder();
    preparer
        .prepare(claims(request.getClaimsList()))
        .forEach((uid, result) -> out.putClaims(uid, wire(result)));
    return out.build();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    Calls.answer(response, () -> unprepare(request));
  }

  /** The answer to {@code request} (for {@link DraV1beta1Service} too). */
  NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
    var out = NodeUnprepareResourcesResponse.newBuilder();
    preparer
        .unprepare(claims(request.getClaimsList()))
        .forEach((uid, result) -> out.putClaims(uid, wire(result)));
    return out.build();
  }

  private static List<KubeClaim> claims(List<Claim> claims) {
    return claims.stream()
        .map(c -> new KubeClaim(c.getNamespace(), c.getName(), c.getUid()))
        .toList();
  }

  private static NodePrepareResourceResponse wire(ClaimPrepareResult result) {
    var out = NodePrepareResourceResponse.newBuilder();
    switch (result) {
      case ClaimPrepareResult.Prepared(var devices) ->
          devices.forEach(
              d -> {
                var device =
                    Device.newBuilder()
                        .setPoolName(d.pool())
                        .setDeviceName(d.device())
                        .addAllRequestNames(d.requestNames())
                        .addAllCdiDeviceIds(d.cdiDeviceIds());
                d.shareId().filter(id -> !id.isEmpty()).ifPresent(device::setShareId);
                out.addDevices(device);
              });
      case ClaimPrepareResult.NotPrepared(var error) -> out.setError(error);
    }
    return out.build();
  }

  private static NodeUnprepareResourceResponse wire(ClaimUnprepareResult result) {
    var out = NodeUnprepareResourceResponse.newBuilder();
    if (result instanceof ClaimUnprepareResult.NotUnprepared(var error)) {
      out.setError(error);
    }
    return out.build();
  }
}
