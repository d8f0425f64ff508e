package dev.quartermaster.kubelet.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.grpc.RegistrationState;
import dev.quartermaster.kubelet.registration.v1.InfoRequest;
import dev.quartermaster.kubelet.registration.v1.RegistrationStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The kubelet's side of plugin registration, over the registration socket. */
@Timeout(120)
class RegistrationTest {

  @Test
  void getInfoNamesADraDriverItsDraSocketAndBothVersions() throws Exception {
    try (var node = new PluginFixture()) {
      assertThat(node.config().registrationSocket())
          .isEqualTo(node.dir.resolve("reg/gpu.quartermaster.dev-reg.sock"));
      var info =
          node.connect(node.config().registrationSocket())
              .registration()
              .getInfo(InfoRequest.getDefaultInstance());

      assertThat(info.getType()).isEqualTo("DRAPlugin");
      assertThat(info.getName()).isEqualTo("gpu.quartermaster.dev");
      assertThat(info.getEndpoint()).isEqualTo(node.config().draSocket().toString());
      assertThat(info.getSupportedVersionsList())
          .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");

      // The endpoint it gives serves both versions (an unknown claim's unprepare succeeds).
      var never = new KubeClaim("default", "never", "0c0c0c0c-0000-4000-8000-00000000000c");
      for (var version : KubeletClient.Version.values()) {
        assertThat(node.connect(Path.of(info.getEndpoint())).dra(version).unprepare(never))
            .as("%s", version)
            .isEmpty();
      }
    }
  }

  @Test
  void theKubeletsVerdictIsKeptARefusalWithItsReason() throws Exception {
    try (var node = new PluginFixture()) {
      var registration = node.connect(node.config().registrationSocket()).registration();
      assertThat(node.plugin().registration()).isEqualTo(new RegistrationState.NotNotified());

      registration.notifyRegistrationStatus(
          RegistrationStatus.newBuilder()
              .setPluginRegistered(false)
              .setError("no supported version")
              .build());
      assertThat(node.plugin().registration())
          .isEqualTo(new RegistrationState.Refused("no supported version"));

      registration.notifyRegistrationStatus(
          RegistrationStatus.newBuilder().setPluginRegistered(true).build());
      assertThat(node.plugin().registration()).isEqualTo(new RegistrationState.Registered());
    }
  }

  /**
   * A kubelet that restarts deletes the node's slices, then registers the driver again: each
   * registration makes the slice publisher look at once.
   */
  @Test
  void eachRegistrationIsToldToWhoeverAsked() throws Exception {
    try (var node = new PluginFixture()) {
      var registrations = new java.util.concurrent.atomic.AtomicInteger();
      node.plugin().onRegistered(registrations::incrementAndGet);
      var registration = node.connect(node.config().registrationSocket()).registration();
      var registered = RegistrationStatus.newBuilder().setPluginRegistered(true).build();

      registration.notifyRegistrationStatus(registered);
      registration.notifyRegistrationStatus(
          RegistrationStatus.newBuilder().setPluginRegistered(false).setError("x").build());
      registration.notifyRegistrationStatus(registered); // the kubelet restarted
      assertThat(registrations).hasValue(2);
    }
  }

  @Test
  void closingTakesBothSocketsAway() throws Exception {
    try (var node = new PluginFixture()) {
      assertThat(node.config().registrationSocket()).exists();
      assertThat(node.config().draSocket()).exists();
      node.plugin().close();
      assertThat(Files.exists(node.config().registrationSocket())).isFalse();
      assertThat(Files.exists(node.config().draSocket())).isFalse();
      node.restart(); // for the fixture's own close
    }
  }
}
