package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.auth.TokenAuthenticator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Limits, authentication, access, internal failures, health and metrics. */
class EdgeTest {
  @TempDir Path dataDir;

  @Test
  void bodyOverTheLimitIs413AndCreatesNothing() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var big = hugeNodeJson(2 << 20);

      var declared = t.send(t.request("/api/v1/nodes").POST(BodyPublishers.ofString(big)).build());
      assertThat(declared.statusCode()).isEqualTo(413);
      assertThat(TestServer.error(declared).reason()).isEqualTo(Reason.PayloadTooLarge);

      // No Content-Length: counted while read.
      var bytes = big.getBytes(StandardCharsets.UTF_8);
      var chunked =
          t.send(
              t.request("/api/v1/nodes")
                  .POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)))
                  .build());
      assertThat(chunked.statusCode()).isEqualTo(413);

      assertThat(api.writes()).isZero();
      assertThat(t.client.list(Kinds.NODE).items()).isEmpty();
    }
  }

  @Test
  void bodyLimitIsConfigurable() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir, c -> c.withMaxBodyBytes(200))) {
      var e =
          catchThrowableOfType(
              ApiException.class, () -> t.client.create(Samples.workload("train", 1)));
      assertThat(e.error().code()).isEqualTo(413);
      assertThat(t.client.create(Samples.node("a")).metadata().name()).isEqualTo("a");
    }
  }

  @Test
  void missingOrWrongTokenIs401() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var none = t.send(HttpRequest.newBuilder(t.uri("/api/v1/nodes")).GET().build());
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(TestServer.error(none).reason()).isEqualTo(Reason.Unauthorized);
      assertThat(none.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));

      try (var wrong = new HttpApiClient(t.server.baseUri(), "not-the-token")) {
        var e = catchThrowableOfType(ApiException.class, () -> wrong.list(Kinds.NODE));
        assertThat(e.error().code()).isEqualTo(401);
      }
      var basic =
          t.send(
              HttpRequest.newBuilder(t.uri("/api/v1/nodes"))
                  .header("Authorization", "Basic " + t.token)
                  .build());
      assertThat(basic.statusCode()).isEqualTo(401);
    }
  }

  @Test
  void adminTokenIsPrivateAndSurvivesRestart() throws IOException {
    String first;
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      first = t.token;
      assertThat(first).matches("[0-9a-f]{64}");
      assertThat(Files.getPosixFilePermissions(t.server.adminTokenFile()))
          .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    }
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      assertThat(t.token).isEqualTo(first);
      assertThat(t.client.list(Kinds.NODE).items()).isEmpty();
    }
  }

  @Test
  void nodePrincipalMayNotWriteAnotherNodesObjects() throws IOException {
    var api = new InMemoryApiClient();
    var authenticator =
        TokenAuthenticator.admin("admin-secret-0123456789")
            .with("node-a-secret-0123456789", Principal.node("a"));
    try (var t = TestServer.start(api, dataDir, c -> c.withAuthenticator(authenticator));
        var agent = new HttpApiClient(t.server.baseUri(), "node-a-secret-0123456789")) {
      assertThat(agent.create(Samples.node("a")).metadata().name()).isEqualTo("a");

      var e = catchThrowableOfType(ApiException.class, () -> agent.create(Samples.node("b")));
      assertThat(e.error().code()).isEqualTo(403);
      assertThat(e.getMessage()).contains("node a").contains("node/b");
      assertThat(agent.list(Kinds.NODE).items()).hasSize(1);
      // Its own node's allocation record is the allocator's alone.
      var record =
          catchThrowableOfType(
              ApiException.class,
              () -> agent.create(new NodeAllocation(ObjectMeta.named("a"), null, null)));
      assertThat(record.error().code()).isEqualTo(403);
      assertThat(api.writes()).isEqualTo(1);
    }
  }

  @Test
  void unexpectedFailureIs500WithoutItsDetails() throws IOException {
    try (var t = TestServer.start(new ExplodingApiClient(), dataDir)) {
      var response = t.send("GET", "/api/v1/nodes/a", "");
      assertThat(response.statusCode()).isEqualTo(500);
      var error = TestServer.error(response);
      assertThat(error.reason()).isEqualTo(Reason.Internal);
      assertThat(error.message()).contains("request").doesNotContain("secret-internal-detail");
    }
  }

  @Test
  void healthAndMetricsNeedNoToken() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir, c -> c.withStoreRevision(api::revision))) {
      t.client.create(Samples.node("a"));
      t.client.create(Samples.node("b"));
      t.send("GET", "/api/v1/gizmos", "");

      var health = t.send(HttpRequest.newBuilder(t.uri("/healthz")).build());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("ok\n");

      var metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .containsPattern(
              "qm_http_requests_seconds_count\\{[^}]*code=\"201\"[^}]*kind=\"nodes\"[^}]*route=\"/api/v1/\\{plural\\}\"[^}]*\\} 2")
          .contains("qm_watches_active 0")
          .contains("qm_store_revision 2");
    }
  }

  @Test
  void unreachableServerIsUnavailable() throws IOException {
    int port;
    try (var socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (var client = new HttpApiClient(URI.create("http://127.0.0.1:" + port), "token")) {
      var e = catchThrowableOfType(ApiException.class, () -> client.get(Kinds.NODE, "a"));
      assertThat(e.reason()).isEqualTo(Reason.Unavailable);
      assertThat(e.getMessage())
          .isEqualTo(
              "cannot reach the server at http://127.0.0.1:" + port + ": connection refused");
    }
  }

  private static String hugeNodeJson(int size) {
    var padding = new char[size];
    Arrays.fill(padding, 'x');
    return "{\"kind\":\"Node\",\"metadata\":{\"name\":\"big\",\"labels\":{\"pad\":\""
        + new String(padding)
        + "\"}}}";
  }

  /** Fails every call with an unexpected exception whose message must not reach the client. */
  private static final class ExplodingApiClient implements ApiClient {
    private static IllegalStateException boom() {
      return new IllegalStateException("secret-internal-detail");
    }

    @Override
    public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> T create(T object) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> T update(T object) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> T updateStatus(T object) {
      throw boom();
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
      throw boom();
    }

    @Override
    public <T extends ApiObject> WatchHandle watch(
        Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
      throw boom();
    }
  }
}
