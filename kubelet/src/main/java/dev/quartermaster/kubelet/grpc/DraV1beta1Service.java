package dev.quartermaster.kubelet.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.quartermaster.kubelet.dra.v1beta1.DRAPluginGrpc;
import dev.quartermaster.kubelet.dra.v1beta1.NodePrepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1beta1.NodePrepareResourcesResponse;
import dev.quartermaster.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest;
import dev.quartermaster.kubelet.dra.v1beta1.NodeUnprepareResourcesResponse;
import dev.quartermaster.kubelet.prepare.DraPreparer;
import io.grpc.stub.StreamObserver;
import java.util.Objects;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin} (kubelets 1.32 and 1.33) as the {@code v1}
 * service: the two versions' messages are the same on the wire (v1 only adds {@code
 * Device.share_id}, field 5, which this plugin never sets), so each request is read again as v1,
 * answered by {@link DraV1Service}, and its answer read again as v1beta1. One mapping between the
 * wire and the preparer, not one per version.
 */
public final class DraV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {
  private final DraV1Service v1;

  public DraV1beta1Service(DraPreparer preparer) {
    this.v1 = new DraV1Service(Objects.requireNonNull(preparer, "preparer"));
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    Calls.answer(
        response,
        () ->
            reread(
                v1.prepare(
                        reread(
                            request.toByteString(),
                            dev.quartermaster.kubelet.dra.v1.NodePrepareResourcesRequest.parser()))
                    .toByteString(),
                NodePrepareResourcesResponse.parser()));
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    Calls.answer(
        response,
        () ->
            reread(
                v1.unprepare(
                        reread(
                            request.toByteString(),
                            dev.quartermaster.kubelet.dra.v1.NodeUnprepareResourcesRequest
                                .parser()))
                    .toByteString(),
                NodeUnprepareResourcesResponse.parser()));
  }

  private static <T> T reread(ByteString bytes, com.google.protobuf.Parser<T> parser) {
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      // Bytes this process has just written with a wire-identical message: cannot happen.
      throw new IllegalStateException("v1 and v1beta1 messages differ on the wire", e);
    }
  }
}
