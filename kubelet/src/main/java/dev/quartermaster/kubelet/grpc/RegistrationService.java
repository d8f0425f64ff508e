package dev.quartermaster.kubelet.grpc;

import dev.quartermaster.kubelet.registration.v1.InfoRequest;
import dev.quartermaster.kubelet.registration.v1.PluginInfo;
import dev.quartermaster.kubelet.registration.v1.RegistrationGrpc;
import dev.quartermaster.kubelet.registration.v1.RegistrationStatus;
import dev.quartermaster.kubelet.registration.v1.RegistrationStatusResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pluginregistration.Registration}: tells the kubelet what this plugin is (a DRA driver, its
 * name, the socket of its DRA services and which versions of them it serves) and hears whether the
 * kubelet took it. A refusal is logged at error level with the kubelet's reason: until the plugin
 * is registered no pod with a claim of this driver can start on the node, and nothing else would
 * say why.
 */
public final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

  private final String driverName;
  private final Path draSocket;
  private final List<String> versions;
  private final AtomicReference<RegistrationState> state =
      new AtomicReference<>(new RegistrationState.NotNotified());
  private final List<Runnable> onRegistered = new java.util.concurrent.CopyOnWriteArrayList<>();

  public RegistrationService(String driverName, Path draSocket, List<String> versions) {
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.draSocket = Objects.requireNonNull(draSocket, "draSocket");
    this.versions = List.copyOf(versions);
  }

  /**
   * Runs {@code action} each time the kubelet registers the driver: after a kubelet restart, which
   * has deleted the node's ResourceSlices, the slices are looked at again at once.
   */
  public void onRegistered(Runnable action) {
    onRegistered.add(Objects.requireNonNull(action, "action"));
  }

  /** What the kubelet said last. */
  public RegistrationState state() {
    return state.get();
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    Calls.answer(
        response,
        () ->
            PluginInfo.newBuilder()
                .setType(DraServices.PLUGIN_TYPE)
                .setName(driverName)
                .setEndpoint(draSocket.toString())
                .addAllSupportedVersions(versions)
                .build());
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus request, StreamObserver<RegistrationStatusResponse> response) {
    Calls.answer(
        response,
        () -> {
          if (request.getPluginRegistered()) {
            state.set(new RegistrationState.Registered());
            LOG.info("the kubelet registered DRA driver {} at {}", driverName, draSocket);
            onRegistered.forEach(Runnable::run);
          } else {
            var error = request.getError().isEmpty() ? "(no reason given)" : request.getError();
            state.set(new RegistrationState.Refused(error));
            LOG.error(
                "THE KUBELET REFUSED TO REGISTER DRA driver {} (endpoint {}, versions {}): {}."
                    + " No claim of this driver will be prepared on this node until it registers.",
                driverName,
                draSocket,
                versions,
                error);
          }
          return RegistrationStatusResponse.getDefaultInstance();
        });
  }
}
