package dev.quartermaster.csi.hostpath.grpc;

import dev.quartermaster.csi.hostpath.HostpathPlugin;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.v1.NodeGetCapabilitiesRequest;
import dev.quartermaster.csi.v1.NodeGetCapabilitiesResponse;
import dev.quartermaster.csi.v1.NodeGetInfoRequest;
import dev.quartermaster.csi.v1.NodeGetInfoResponse;
import dev.quartermaster.csi.v1.NodeGrpc;
import dev.quartermaster.csi.v1.NodePublishVolumeRequest;
import dev.quartermaster.csi.v1.NodePublishVolumeResponse;
import dev.quartermaster.csi.v1.NodeServiceCapability;
import dev.quartermaster.csi.v1.NodeStageVolumeRequest;
import dev.quartermaster.csi.v1.NodeStageVolumeResponse;
import dev.quartermaster.csi.v1.NodeUnpublishVolumeRequest;
import dev.quartermaster.csi.v1.NodeUnpublishVolumeResponse;
import dev.quartermaster.csi.v1.NodeUnstageVolumeRequest;
import dev.quartermaster.csi.v1.NodeUnstageVolumeResponse;
import io.grpc.stub.StreamObserver;

/** The Node service of the hostpath plugin. */
public final class HostpathNodeService extends NodeGrpc.NodeImplBase {
  private final HostpathPlugin plugin;

  public HostpathNodeService(HostpathPlugin plugin) {
    this.plugin = plugin;
  }

  @Override
  public void nodeStageVolume(
      NodeStageVolumeRequest request, StreamObserver<NodeStageVolumeResponse> observer) {
    var call = CsiCall.NodeStageVolume;
    Adapt.answer(
        call,
        observer,
        () -> {
          plugin.nodeStage(
              request.getVolumeId(),
              request.getPublishContextMap(),
              request.getStagingTargetPath(),
              Adapt.access(
                  call,
                  "volume_capability",
                  request.hasVolumeCapability(),
                  request.getVolumeCapability()));
          return NodeStageVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodeUnstageVolume(
      NodeUnstageVolumeRequest request, StreamObserver<NodeUnstageVolumeResponse> observer) {
    Adapt.answer(
        CsiCall.NodeUnstageVolume,
        observer,
        () -> {
          plugin.nodeUnstage(request.getVolumeId(), request.getStagingTargetPath());
          return NodeUnstageVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodePublishVolume(
      NodePublishVolumeRequest request, StreamObserver<NodePublishVolumeResponse> observer) {
    var call = CsiCall.NodePublishVolume;
    Adapt.answer(
        call,
        observer,
        () -> {
          plugin.nodePublish(
              request.getVolumeId(),
              request.getPublishContextMap(),
              request.getStagingTargetPath(),
              request.getTargetPath(),
              Adapt.access(
                  call,
                  "volume_capability",
                  request.hasVolumeCapability(),
                  request.getVolumeCapability()),
              request.getReadonly());
          return NodePublishVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodeUnpublishVolume(
      NodeUnpublishVolumeRequest request, StreamObserver<NodeUnpublishVolumeResponse> observer) {
    Adapt.answer(
        CsiCall.NodeUnpublishVolume,
        observer,
        () -> {
          plugin.nodeUnpublish(request.getVolumeId(), request.getTargetPath());
          return NodeUnpublishVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodeGetCapabilities(
      NodeGetCapabilitiesRequest request, StreamObserver<NodeGetCapabilitiesResponse> observer) {
    Adapt.answer(
        CsiCall.NodeGetCapabilities,
        observer,
        () ->
            NodeGetCapabilitiesResponse.newBuilder()
                .addCapabilities(
                    NodeServiceCapability.newBuilder()
                        .setRpc(
                            NodeServiceCapability.RPC
                                .newBuilder()
                                .setType(NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME)))
                .build());
  }

  @Override
  public void nodeGetInfo(
      NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> observer) {
    Adapt.answer(
        CsiCall.NodeGetInfo,
        observer,
        () -> {
          var info = plugin.nodeInfo();
          return NodeGetInfoResponse.newBuilder()
              .setNodeId(info.nodeId())
              .setMaxVolumesPerNode(info.maxVolumesPerNode())
              .build();
        });
  }
}
