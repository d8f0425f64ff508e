package dev.quartermaster.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.TrustedCa;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.ApiServer;
import dev.quartermaster.server.ApiServerConfig;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's own CA and certificate: made once and kept, keys readable by the owner only, the
 * certificate naming what the server listens on; a client that trusts that CA talks HTTPS, one that
 * does not is told what to do, and plain HTTP gets nothing.
 */
class TlsTest {
  @TempDir Path dataDir;

  @Test
  void theCertificatesAreMadeOnceAndNameWhatTheServerListensOn() throws Exception {
    var now = Instant.now();
    var first = ServerCertificates.loadOrCreate(dataDir, List.of("cp.example"), now);
    var again = ServerCertificates.loadOrCreate(dataDir, List.of("cp.example"), now);
    assertThat(again.ca()).isEqualTo(first.ca());
    assertThat(again.certificate()).isEqualTo(first.certificate());
    assertThat(ServerCertificates.fingerprint(first.ca())).matches("SHA256(:[0-9A-F]{2}){32}");
    for (var key : List.of("ca.key", "server.key")) {
      assertThat(Files.getPosixFilePermissions(dataDir.resolve("tls").resolve(key)))
          .as(key)
          .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    }
    var names =
        first.certificate().getSubjectAlternativeNames().stream()
            .map(n -> String.valueOf(n.get(1)))
            .toList();
    assertThat(names).contains("localhost", "127.0.0.1", "cp.example");
    first.certificate().verify(first.ca().getPublicKey());

    // A new name: a new server certificate from the same CA.
    var wider = ServerCertificates.loadOrCreate(dataDir, List.of("cp.example", "10.0.0.7"), now);
    assertThat(wider.ca()).isEqualTo(first.ca());
    assertThat(wider.certificate()).isNotEqualTo(first.certificate());
    wider.certificate().verify(first.ca().getPublicKey());
  }

  @Test
  void newKeysAreRsaForCheapClientsAndAnEcCaMadeBeforeStillSigns() throws Exception {
    var now = Instant.now();
    var made = ServerCertificates.loadOrCreate(dataDir, List.of(), now);
    // A client command is a fresh JVM: verifying RSA costs it under a millisecond, its first
    // ECDSA verification tens of them.
    assertThat(made.ca().getPublicKey().getAlgorithm()).isEqualTo("RSA");
    assertThat(made.key().getAlgorithm()).isEqualTo("RSA");

    var older = dataDir.resolve("older");
    var ec = ServerCertificates.newCa(now, "EC");
    ServerCertificates.installCa(older, ec.certificatePem(), ec.keyPem());
    var kept = ServerCertificates.loadOrCreate(older, List.of(), now);
    assertThat(kept.ca().getPublicKey().getAlgorithm()).isEqualTo("EC");
    assertThat(kept.certificate().getSigAlgName()).isEqualTo("SHA256withECDSA");
    kept.certificate().verify(kept.ca().getPublicKey());
    assertThat(ServerCertificates.loadOrCreate(older, List.of(), now).certificate())
        .isEqualTo(kept.certificate());
  }

  /**
   * The client offers X25519 alone first (a P-256 share costs a fresh command 60 ms); a server that
   * speaks only P-256, as TLS 1.3 allows, is reached on a second handshake.
   */
  @Test
  void aServerWithoutX25519IsReachedOnASecondHandshake() throws Exception {
    var material = ServerCertificates.loadOrCreate(dataDir, List.of(), Instant.now());
    var password = "test".toCharArray();
    var keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry(
        "server", material.key(), password, new Certificate[] {material.certificate()});
    var managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    managers.init(keys, password);
    var context = SSLContext.getInstance("TLS");
    context.init(managers.getKeyManagers(), null, null);
    var refused = new AtomicInteger();
    try (var listener =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
      var parameters = listener.getSSLParameters();
      parameters.setNamedGroups(new String[] {"secp256r1"});
      listener.setSSLParameters(parameters);
      var serving =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    for (int i = 0; i < 2; i++) {
                      try (var socket = (SSLSocket) listener.accept()) {
                        socket.startHandshake();
                        var in = new BufferedReader(new InputStreamReader(socket.getInputStream()));
                        while (!in.readLine().isEmpty()) {
                          // the request's head; a GET has no body
                        }
                        socket
                            .getOutputStream()
                            .write(
                                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
                                    .getBytes(StandardCharsets.US_ASCII));
                        socket.getOutputStream().flush();
                        return;
                      } catch (IOException e) {
                        refused.incrementAndGet();
                      }
                    }
                  });
      var ca = TrustedCa.sslContext(dataDir.resolve("tls").resolve("ca.crt"));
      var server = URI.create("https://127.0.0.1:" + listener.getLocalPort());
      try (var client = new HttpApiClient(server, "token", Optional.of(ca))) {
        assertThat(client.exchange("GET", "/version", Optional.empty())).asString().isEqualTo("{}");
      }
      serving.join();
      assertThat(refused).as("the X25519-only handshake the server refused").hasValue(1);
    }
  }

  @Test
  void aClientThatTrustsTheCaTalksHttpsAndOthersAreToldWhy() throws Exception {
    try (var store = SqliteStore.open(dataDir.resolve("store.db"))) {
      var material = ServerCertificates.loadOrCreate(dataDir, List.of(), Instant.now());
      var config =
          ApiServerConfig.of(new ObjectRegistry(store, new SystemEnv()), dataDir)
              .withListen("127.0.0.1", 0)
              .withTls(material);
      try (var server = ApiServer.start(config)) {
        assertThat(server.baseUri().getScheme()).isEqualTo("https");
        var token = Files.readString(server.adminTokenFile()).strip();
        var ca = TrustedCa.sslContext(dataDir.resolve("tls").resolve("ca.crt"));
        try (var client = new HttpApiClient(server.baseUri(), token, Optional.of(ca))) {
          client.create(new Node(ObjectMeta.named("n1"), null, null));
          assertThat(client.list(Kinds.NODE).items()).hasSize(1);
        }
        try (var untrusting = new HttpApiClient(server.baseUri(), token)) {
          var e = catchThrowableOfType(ApiException.class, () -> untrusting.list(Kinds.NODE));
          assertThat(e.reason()).isEqualTo(Reason.Unavailable);
          assertThat(e.getMessage())
              .contains("the CA you trust did not sign")
              .contains("--ca-file");
        }
        var plain = java.net.URI.create(server.baseUri().toString().replace("https://", "http://"));
        try (var http = new HttpApiClient(plain, token)) {
          var e = catchThrowableOfType(ApiException.class, () -> http.list(Kinds.NODE));
          assertThat(e.reason()).isEqualTo(Reason.Unavailable);
        }
      }
    }
  }
}
