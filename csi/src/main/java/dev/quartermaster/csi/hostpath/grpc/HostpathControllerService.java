package dev.quartermaster.csi.hostpath.grpc;

import com.google.protobuf.Int64Value;
import dev.quartermaster.csi.hostpath.HostpathPlugin;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.v1.ControllerGetCapabilitiesRequest;
import dev.quartermaster.csi.v1.ControllerGetCapabilitiesResponse;
import dev.quartermaster.csi.v1.ControllerGrpc;
import dev.quartermaster.csi.v1.ControllerPublishVolumeRequest;
import dev.quartermaster.csi.v1.ControllerPublishVolumeResponse;
import dev.quartermaster.csi.v1.ControllerServiceCapability;
import dev.quartermaster.csi.v1.ControllerUnpublishVolumeRequest;
import dev.quartermaster.csi.v1.ControllerUnpublishVolumeResponse;
import dev.quartermaster.csi.v1.CreateVolumeRequest;
import dev.quartermaster.csi.v1.CreateVolumeResponse;
import dev.quartermaster.csi.v1.DeleteVolumeRequest;
import dev.quartermaster.csi.v1.DeleteVolumeResponse;
import dev.quartermaster.csi.v1.GetCapacityRequest;
import dev.quartermaster.csi.v1.GetCapacityResponse;
import dev.quartermaster.csi.v1.ListVolumesRequest;
import dev.quartermaster.csi.v1.ListVolumesResponse;
import dev.quartermaster.csi.v1.ValidateVolumeCapabilitiesRequest;
import dev.quartermaster.csi.v1.ValidateVolumeCapabilitiesResponse;
import dev.quartermaster.csi.v1.Volume;
import io.grpc.stub.StreamObserver;
import java.util.List;

/** The Controller service of the hostpath plugin. */
public final class HostpathControllerService extends ControllerGrpc.ControllerImplBase {
  private static final List<ControllerServiceCapability.RPC.Type> CAPABILITIES =
      List.of(
          ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
          ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME,
          ControllerServiceCapability.RPC.Type.LIST_VOLUMES,
          ControllerServiceCapability.RPC.Type.GET_CAPACITY,
          ControllerServiceCapability.RPC.Type.LIST_VOLUMES_PUBLISHED_NODES);

  private final HostpathPlugin plugin;

  public HostpathControllerService(HostpathPlugin plugin) {
    this.plugin = plugin;
  }

  @Override
  public void createVolume(
      CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> observer) {
    var call = CsiCall.CreateVolume;
    Adapt.answer(
        call,
        observer,
        () -> {
          var created =
              plugin.createVolume(
                  request.getName(),
                  request.getCapacityRange().getRequiredBytes(),
                  request.getCapacityRange().getLimitBytes(),
                  Adapt.accesses(call, "volume_capabilities", request.getVolumeCapabilitiesList()),
                  request.getParametersMap());
          return CreateVolumeResponse.newBuilder()
              .setVolume(
                  Volume.newBuilder()
                      .setVolumeId(created.volumeId())
                      .setCapacityBytes(created.capacityBytes())
                      .putAllVolumeContext(created.context()))
              .build();
        });
  }

  @Override
  public void deleteVolume(
      DeleteVolumeRequest request, StreamObserver<DeleteVolumeResponse> observer) {
    Adapt.answer(
        CsiCall.DeleteVolume,
        observer,
        () -> {
          plugin.deleteVolume(request.getVolumeId());
          return DeleteVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void controllerPublishVolume(
      ControllerPublishVolumeRequest request,
      StreamObserver<ControllerPublishVolumeResponse> observer) {
    var call = CsiCall.ControllerPublishVolume;
    Adapt.answer(
        call,
        observer,
        () -> {
          var context =
              plugin.controllerPublish(
                  request.getVolumeId(),
                  request.getNodeId(),
                  Adapt.access(
                      call,
                      "volume_capability",
                      request.hasVolumeCapability(),
                      request.getVolumeCapability()),
                  request.getReadonly());
          return ControllerPublishVolumeResponse.newBuilder().putAllPublishContext(context).build();
        });
  }

  @Override
  public void controllerUnpublishVolume(
      ControllerUnpublishVolumeRequest request,
      StreamObserver<ControllerUnpublishVolumeResponse> observer) {
    Adapt.answer(
        CsiCall.ControllerUnpublishVolume,
        observer,
        () -> {
          plugin.controllerUnpublish(request.getVolumeId(), request.getNodeId());
          return ControllerUnpublishVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void validateVolumeCapabilities(
      ValidateVolumeCapabilitiesRequest request,
      StreamObserver<ValidateVolumeCapabilitiesResponse> observer) {
    var call = CsiCall.ValidateVolumeCapabilities;
    Adapt.answer(
        call,
        observer,
        () -> {
          var result =
              plugin.validate(
                  request.getVolumeId(),
                  Adapt.accesses(call, "volume_capabilities", request.getVolumeCapabilitiesList()));
          var response =
              ValidateVolumeCapabilitiesResponse.newBuilder().setMessage(result.message());
          if (result.confirmed()) {
            response.setConfirmed(
                ValidateVolumeCapabilitiesResponse.Confirmed.newBuilder()
                    .putAllVolumeContext(request.getVolumeContextMap())
                    .addAllVolumeCapabilities(request.getVolumeCapabilitiesList())
                    .putAllParameters(request.getParametersMap()));
          }
          return response.build();
        });
  }

  @Override
  public void listVolumes(
      ListVolumesRequest request, StreamObserver<ListVolumesResponse> observer) {
    Adapt.answer(
        CsiCall.ListVolumes,
        observer,
        () -> {
          var page = plugin.listVolumes(request.getMaxEntries(), request.getStartingToken());
          var response = ListVolumesResponse.newBuilder().setNextToken(page.nextToken());
          for (var e : page.entries()) {
            response.addEntries(
                ListVolumesResponse.Entry.newBuilder()
                    .setVolume(
                        Volume.newBuilder()
                            .setVolumeId(e.volumeId())
                            .setCapacityBytes(e.capacityBytes())
                            .putAllVolumeContext(e.context()))
                    .setStatus(
                        ListVolumesResponse.VolumeStatus.newBuilder()
                            .addAllPublishedNodeIds(e.publishedNodeIds())));
          }
          return response.build();
        });
  }

  @Override
  public void getCapacity(
      GetCapacityRequest request, StreamObserver<GetCapacityResponse> observer) {
    var call = CsiCall.GetCapacity;
    Adapt.answer(
        call,
        observer,
        () ->
            GetCapacityResponse.newBuilder()
                .setAvailableCapacity(
                    plugin.availableCapacity(
                        Adapt.accesses(
                            call, "volume_capabilities", request.getVolumeCapabilitiesList())))
                .setMaximumVolumeSize(Int64Value.of(plugin.maximumVolumeSize()))
                .build());
  }

  @Override
  public void controllerGetCapabilities(
      ControllerGetCapabilitiesRequest request,
      StreamObserver<ControllerGetCapabilitiesResponse> observer) {
    Adapt.answer(
        CsiCall.ControllerGetCapabilities,
        observer,
        () -> {
          var response = ControllerGetCapabilitiesResponse.newBuilder();
          for (var type : CAPABILITIES) {
            response.addCapabilities(
                ControllerServiceCapability.newBuilder()
                    .setRpc(ControllerServiceCapability.RPC.newBuilder().setType(type)));
          }
          return response.build();
        });
  }
}
