package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.auth.NodeTokens;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node credentials in the store: made once (the secret shown then only), kept as a digest, listed
 * without secrets, revoked at once for every server reading that store; managed by admins only,
 * over {@code /api/v1/tokens}.
 */
@org.junit.jupiter.api.Timeout(60)
class NodeTokensTest {
  @TempDir Path dataDir;

  @Test
  void aTokenStandsForItsNodeUntilRevokedAndTheStoreNeverHoldsIt() {
    try (var store = SqliteStore.open(dataDir.resolve("store.db"))) {
      var tokens = new NodeTokens(store);
      var issued = tokens.create("gpu-7", Instant.parse("2026-11-23T00:00:00Z"));
      assertThat(issued.token())
          .matches("qmn\\.[0-9a-f]{16}\\.[0-9a-f]{64}")
          .contains(issued.info().id());
      assertThat(tokens.authenticate(issued.token()))
          .get()
          .matches(p -> p.name().equals("node:gpu-7"));
      assertThat(tokens.list()).containsExactly(issued.info());
      var secret = issued.token().substring(issued.token().lastIndexOf('.') + 1);
      assertThat(store.range("/", 0).kvs())
          .noneMatch(kv -> new String(kv.value(), StandardCharsets.UTF_8).contains(secret));

      // A guess with the right id and a wrong secret, a truncated token, other shapes: nothing.
      var wrong =
          issued.token().substring(0, issued.token().length() - 1)
              + (issued.token().endsWith("0") ? "1" : "0");
      for (var bad :
          new String[] {
            wrong, issued.token().substring(0, 30), "qmn..", "", "admin", issued.token() + " "
          }) {
        assertThat(tokens.authenticate(bad)).as(bad).isEmpty();
      }
      // A second server on the same store sees the same tokens, and the revoke at once.
      var other = new NodeTokens(store);
      assertThat(other.authenticate(issued.token())).isPresent();
      assertThat(tokens.revoke(issued.info().id())).contains(issued.info());
      assertThat(other.authenticate(issued.token())).isEmpty();
      assertThat(tokens.revoke(issued.info().id())).isEmpty();
      assertThat(tokens.revoke("../../registry/nodes/x")).isEmpty();
      assertThat(tokens.list()).isEmpty();
      var invalid =
          catchThrowableOfType(ApiException.class, () -> tokens.create("../etc", Instant.EPOCH));
      assertThat(invalid.error().code()).isEqualTo(422);
    }
  }

  @Test
  void onlyAnAdminManagesTokensAndANodeTokenWorksAsItsNodeOverHttp() throws Exception {
    try (var store = SqliteStore.open(dataDir.resolve("store.db"))) {
      var registry = new ObjectRegistry(store, new SystemEnv());
      try (var t =
          TestServer.start(registry, dataDir, c -> c.withNodeTokens(new NodeTokens(store)))) {
        var created = t.send("POST", "/api/v1/tokens", "{\"node\":\"gpu-7\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        var token = created.body().replaceAll(".*\"token\":\"([^\"]+)\".*", "$1");
        try (var agent = new HttpApiClient(t.server.baseUri(), token)) {
          agent.create(new Node(ObjectMeta.named("gpu-7"), NodeSpec.EMPTY, null));
          var other =
              catchThrowableOfType(
                  ApiException.class,
                  () -> agent.create(new Node(ObjectMeta.named("gpu-8"), NodeSpec.EMPTY, null)));
          assertThat(other.error().code()).isEqualTo(403);
          var manage =
              catchThrowableOfType(
                  ApiException.class, () -> agent.exchange("GET", "tokens", Optional.empty()));
          assertThat(manage.error().code()).isEqualTo(403);
          assertThat(manage.getMessage()).contains("only an admin");

          var list = t.send("GET", "/api/v1/tokens", "");
          assertThat(list.body())
              .contains("gpu-7")
              .doesNotContain(token.substring(token.lastIndexOf('.') + 1));
          var id = token.split("\\.")[1];
          assertThat(t.send("DELETE", "/api/v1/tokens/" + id, "").statusCode()).isEqualTo(200);
          var revoked =
              catchThrowableOfType(ApiException.class, () -> agent.get(Kinds.NODE, "gpu-7"));
          assertThat(revoked.error().code()).isEqualTo(401);
          assertThat(t.send("DELETE", "/api/v1/tokens/" + id, "").statusCode()).isEqualTo(404);
          var bad = t.send("POST", "/api/v1/tokens", "{\"nod\":\"x\"}");
          assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        }
      }
    }
  }

  /**
   * A token request is decoded as strictly as an object, and its errors name the field, never a
   * Java type.
   */
  @Test
  void aBadTokenRequestIsA400NamingTheFieldAndTheRule() throws Exception {
    try (var store = SqliteStore.open(dataDir.resolve("store.db"))) {
      var registry = new ObjectRegistry(store, new SystemEnv());
      try (var t =
          TestServer.start(registry, dataDir, c -> c.withNodeTokens(new NodeTokens(store)))) {
        var cases =
            java.util.Map.of(
                "{\"node\":1}", "node: must be",
                "{\"node\":\"gpu-1\",\"admin\":true}", "admin: unknown field",
                "{}", "node: required",
                "{\"node\":\"\"}", "node: required",
                "[\"gpu-1\"]", "expected a JSON object",
                "", "expected a JSON object",
                "{\"node\":\"a\",\"node\":\"b\"}", "duplicate key 'node'");
        for (var c : cases.entrySet()) {
          var answer = t.send("POST", "/api/v1/tokens", c.getKey());
          assertThat(answer.statusCode()).as(c.getKey() + " -> " + answer.body()).isEqualTo(400);
          assertThat(answer.body())
              .as(c.getKey())
              .contains(c.getValue())
              .doesNotContain("java.")
              .doesNotContain("dev.quartermaster")
              .doesNotContain("Coercion")
              .doesNotContain("TokenRequest");
        }
        assertThat(new NodeTokens(store).list()).isEmpty();
      }
    }
  }

  /**
   * Revoking a token ends the watches it opened (within WatchStreams.CREDENTIALS_RECHECKED), not
   * only its next call.
   */
  @Test
  void revokingATokenEndsTheWatchesItOpened() throws Exception {
    try (var store = SqliteStore.open(dataDir.resolve("store.db"))) {
      var registry = new ObjectRegistry(store, new SystemEnv());
      try (var t =
          TestServer.start(registry, dataDir, c -> c.withNodeTokens(new NodeTokens(store)))) {
        var created = t.send("POST", "/api/v1/tokens", "{\"node\":\"gpu-7\"}");
        var token = created.body().replaceAll(".*\"token\":\"([^\"]+)\".*", "$1");
        var watch =
            java.net.http.HttpRequest.newBuilder(
                    t.server.baseUri().resolve("/api/v1/nodes?watch=true"))
                .header("Authorization", "Bearer " + token)
                .build();
        var response = t.raw.send(watch, java.net.http.HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(t.send("DELETE", "/api/v1/tokens/" + token.split("\\.")[1], "").statusCode())
            .isEqualTo(200);
        // The stream ends with a 401 line; until then only bookmarks may come. The test's timeout
        // bounds the wait.
        var last = response.body().filter(l -> !l.contains("BOOKMARK")).findFirst();
        assertThat(last)
            .hasValueSatisfying(
                l -> assertThat(l).contains("\"ERROR\"").contains("401").contains("revoked"));
      }
    }
  }
}
