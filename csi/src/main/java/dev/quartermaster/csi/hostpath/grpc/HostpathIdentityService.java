package dev.quartermaster.csi.hostpath.grpc;

import com.google.protobuf.BoolValue;
import dev.quartermaster.csi.hostpath.HostpathPlugin;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.v1.GetPluginCapabilitiesRequest;
import dev.quartermaster.csi.v1.GetPluginCapabilitiesResponse;
import dev.quartermaster.csi.v1.GetPluginInfoRequest;
import dev.quartermaster.csi.v1.GetPluginInfoResponse;
import dev.quartermaster.csi.v1.IdentityGrpc;
import dev.quartermaster.csi.v1.PluginCapability;
import dev.quartermaster.csi.v1.ProbeRequest;
import dev.quartermaster.csi.v1.ProbeResponse;
import io.grpc.stub.StreamObserver;

/** The Identity service of the hostpath plugin. */
public final class HostpathIdentityService extends IdentityGrpc.IdentityImplBase {
  private final HostpathPlugin plugin;

  public HostpathIdentityService(HostpathPlugin plugin) {
    this.plugin = plugin;
  }

  @Override
  public void getPluginInfo(
      GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
    Adapt.answer(
        CsiCall.GetPluginInfo,
        observer,
        () -> {
          var info = plugin.info();
          return GetPluginInfoResponse.newBuilder()
              .setName(info.name())
              .setVendorVersion(info.vendorVersion())
              .build();
        });
  }

  @Override
  public void getPluginCapabilities(
      GetPluginCapabilitiesRequest request,
      StreamObserver<GetPluginCapabilitiesResponse> observer) {
    Adapt.answer(
        CsiCall.GetPluginCapabilities,
        observer,
        () -> {
          var response = GetPluginCapabilitiesResponse.newBuilder();
          if (plugin.info().has(Capability.ControllerService)) {
            response.addCapabilities(
                PluginCapability.newBuilder()
                    .setService(
                        PluginCapability.Service.newBuilder()
                            .setType(PluginCapability.Service.Type.CONTROLLER_SERVICE)));
          }
          return response.build();
        });
  }

  @Override
  public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
    Adapt.answer(
        CsiCall.Probe,
        observer,
        () -> ProbeResponse.newBuilder().setReady(BoolValue.of(plugin.ready())).build());
  }
}
