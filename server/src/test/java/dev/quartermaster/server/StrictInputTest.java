package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.NodeStatus;
import java.io.IOException;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile or sloppy input gets a clear 4xx naming the field and the rule, and changes nothing
 * (issue 10, item 5).
 */
class StrictInputTest {
  @TempDir Path dataDir;

  @Test
  void aNullOrEmptyBodyIs400ForEveryKind() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      for (var kind : Kinds.ALL) {
        for (var body : List.of("null", "")) {
          var post = t.send("POST", "/api/v1/" + kind.plural(), body);
          assertThat(post.statusCode()).as("POST %s %s", kind.plural(), body).isEqualTo(400);
          assertThat(TestServer.error(post).message())
              .startsWith("expected an object with kind, metadata, spec");
          var put = t.send("PUT", "/api/v1/" + kind.plural() + "/x/status", body);
          assertThat(put.statusCode()).as("PUT status %s %s", kind.plural(), body).isEqualTo(400);
        }
      }
      var array = t.send("POST", "/api/v1/nodes", "[]");
      assertThat(array.statusCode()).isEqualTo(400);
      assertThat(array.body())
          .doesNotContain("ApiObject")
          .contains("expected an object with kind, metadata, spec");
      // Jackson reads [kind, object] as a typed value: an array is still not an object.
      for (var body :
          List.of(
              "[1]",
              "[\"Node\", {\"metadata\": {\"name\": \"a\"}, \"spec\": {}}]",
              "7",
              "\"x\"",
              "true")) {
        var other = t.send("POST", "/api/v1/nodes", body);
        assertThat(other.statusCode()).as(body).isEqualTo(400);
        assertThat(TestServer.error(other).message())
            .as(body)
            .startsWith("expected an object with kind, metadata, spec; got a");
      }
      assertThat(api.writes()).isZero();
    }
  }

  @Test
  void aBodyDeclaredAsSomethingElseThanJsonIs415() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var yaml = "kind: Node\nmetadata:\n  name: a\nspec: {}\n";
      for (var type :
          List.of(
              "application/yaml",
              "application/x-www-form-urlencoded",
              "text/plain; charset=utf-8")) {
        var response =
            t.send(
                t.request("/api/v1/nodes")
                    .header("Content-Type", type)
                    .POST(BodyPublishers.ofString(yaml))
                    .build());
        assertThat(response.statusCode()).as(type).isEqualTo(415);
        assertThat(TestServer.error(response).message())
            .contains("the API takes JSON bodies", "qm apply -f reads YAML");
      }
      var json =
          t.send(
              t.request("/api/v1/nodes")
                  .header("Content-Type", "application/json; charset=utf-8")
                  .POST(
                      BodyPublishers.ofString(
                          "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"},\"spec\":{}}"))
                  .build());
      assertThat(json.statusCode()).isEqualTo(201);
      assertThat(api.writes()).isEqualTo(1);
    }
  }

  @Test
  void duplicateKeysAndCoercionsAre400NamingTheField() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var dup =
          t.send(
              "POST",
              "/api/v1/nodes",
              "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}");
      assertThat(dup.statusCode()).isEqualTo(400);
      assertThat(TestServer.error(dup).details())
          .containsExactly(
              new Violation("metadata.name", "duplicate key 'name'; give each key once"));
      var number = t.send("POST", "/api/v1/nodes", "{\"kind\":\"Node\",\"metadata\":{\"name\":7}}");
      assertThat(TestServer.error(number).details())
          .containsExactly(new Violation("metadata.name", "must be a string"));
      var json = Samples.workloadJson("train", 1).replace("\"replicas\":1", "\"replicas\":1.7");
      assertThat(json).contains("1.7");
      var fraction = t.send("POST", "/api/v1/workloads", json);
      assertThat(fraction.statusCode()).isEqualTo(400);
      assertThat(TestServer.error(fraction).details().getFirst().rule())
          .isEqualTo("must be an integer");
      assertThat(api.writes()).isZero();
    }
  }

  @Test
  void serverOwnedMetadataOnCreateIs422() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var body =
          "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"uid\":\"mine\",\"revision\":42,\"generation\":7,"
              + "\"createdAt\":\"2020-01-01T00:00:00Z\",\"deletedAt\":\"2020-01-01T00:00:00Z\"}}";
      var r = t.send("POST", "/api/v1/nodes", body);
      assertThat(r.statusCode()).isEqualTo(422);
      assertThat(TestServer.error(r).details())
          .extracting(Violation::field)
          .containsExactly(
              "metadata.uid",
              "metadata.revision",
              "metadata.generation",
              "metadata.createdAt",
              "metadata.deletedAt");
      assertThat(TestServer.error(r).details().getFirst().rule())
          .isEqualTo("is set by the server; leave it out on create");
      assertThat(api.writes()).isZero();
    }
  }

  @Test
  void statusWritesAreValidated() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var claim =
          t.client.create(
              new ResourceClaim(
                  ObjectMeta.named("c"),
                  new ResourceClaimSpec(
                      List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
                  null));
      var bad =
          claim.withStatus(
              ResourceClaimStatus.EMPTY.withAllocation(
                  new Allocation("NOPE", List.of(new AllocatedDevice("gpu", "../../etc")))));
      var e = catchThrowableOfType(ApiException.class, () -> t.client.updateStatus(bad));
      assertThat(e.reason()).isEqualTo(Reason.Invalid);
      assertThat(e.error().details())
          .extracting(Violation::field)
          .containsExactly("status.allocation.node", "status.allocation.devices[0].device");

      var node = t.client.create(Samples.node("n1"));
      var nul =
          node.withStatus(
              new NodeStatus(List.of(), Optional.empty(), "boot\u0000id", "", List.of()));
      var n = catchThrowableOfType(ApiException.class, () -> t.client.updateStatus(nul));
      assertThat(n.error().details())
          .containsExactly(new Violation("status.bootId", "must not contain control characters"));

      var good =
          claim.withStatus(
              ResourceClaimStatus.EMPTY.withAllocation(
                  new Allocation("n1", List.of(new AllocatedDevice("gpu", "gpu-0")))));
      assertThat(t.client.updateStatus(good).status().allocation()).isPresent();
    }
  }

  @Test
  void aSelectorThatNoLabelCouldMatchIs400() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      for (var selector : List.of("a%2Fb%2Fc%3Dx", "-bad", "team%3D..", "x%20in%20(a%2Fb)")) {
        var r = t.send("GET", "/api/v1/nodes?labelSelector=" + selector, "");
        assertThat(r.statusCode()).as(selector).isEqualTo(400);
        assertThat(TestServer.error(r).details().getFirst().field()).isEqualTo("labelSelector");
      }
      assertThat(t.send("GET", "/api/v1/nodes?labelSelector=team%3Dvision", "").statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void aWatchFromAFutureRevisionIs400() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      t.client.create(Samples.node("a"));
      var r = t.send("GET", "/api/v1/nodes?watch=true&revision=999999", "");
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(TestServer.error(r).details().getFirst().field()).isEqualTo("revision");
    }
  }

  @Test
  void manyViolationsAreCappedWithACount() throws IOException {
    var api = new InMemoryApiClient();
    try (var t = TestServer.start(api, dataDir)) {
      var labels = new HashMap<String, String>();
      for (int i = 0; i < 5000; i++) {
        labels.put("-bad" + i, "v");
      }
      var body = new String(ObjectCodec.toJson(Samples.node("a", labels)), StandardCharsets.UTF_8);
      var r = t.send("POST", "/api/v1/nodes", body);
      assertThat(r.statusCode()).isEqualTo(422);
      var error = TestServer.error(r);
      assertThat(error.details()).hasSize(ApiError.MAX_DETAILS + 1);
      assertThat(error.details().getLast().rule())
          .isEqualTo("... and " + (5001 - ApiError.MAX_DETAILS) + " more");
      assertThat(r.body().length()).isLessThan(64 * 1024);
    }
  }

  @Test
  void anOverlongUrlIs414AsJson() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var r = t.send("GET", "/api/v1/nodes/" + "a".repeat(Router.MAX_URI_CHARS), "");
      assertThat(r.statusCode()).isEqualTo(414);
      assertThat(TestServer.error(r).reason()).isEqualTo(Reason.UriTooLong);
    }
  }

  @Test
  void headOnHealthzIs200WithoutABody() throws IOException {
    try (var t = TestServer.start(new InMemoryApiClient(), dataDir)) {
      var head = t.send(t.request("/healthz").method("HEAD", BodyPublishers.noBody()).build());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      var post = t.send("POST", "/healthz", "");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
      assertThat(t.send("GET", "/healthz", "").body()).isEqualTo("ok\n");
    }
  }
}
