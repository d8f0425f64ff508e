package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.auth.NodeScopedAccess;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.server.auth.TokenAuthenticator;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 43, item 10: an admin-created Node stored {@code AgentReady=True}, an agent that never was.
 * Over HTTP against the real registry: an admin's create with a status is a 422 and stores nothing;
 * the node's own agent still registers its node with its status.
 */
class NodeStatusOnCreateTest {
  private static final String ADMIN = "admin-secret-0123456789";
  private static final String NODE_A = "node-a-secret-0123456789";

  @TempDir Path dataDir;
  SqliteStore store;
  TestServer server;
  HttpApiClient admin;
  HttpApiClient agent;

  @BeforeEach
  void start() throws Exception {
    store = SqliteStore.open(dataDir.resolve("store.db"));
    var registry = new ObjectRegistry(store, new SystemEnv());
    var tokens = TokenAuthenticator.admin(ADMIN).with(NODE_A, Principal.node("a"));
    server =
        TestServer.start(
            registry,
            dataDir,
            c -> c.withAuthenticator(tokens).withAccessRule(new NodeScopedAccess()));
    admin = new HttpApiClient(server.server.baseUri(), ADMIN);
    agent = new HttpApiClient(server.server.baseUri(), NODE_A);
  }

  @AfterEach
  void stop() throws Exception {
    agent.close();
    admin.close();
    server.close();
    store.close();
  }

  private static Node ready(String name) {
    var ready =
        new Condition(
            NodeConditions.AGENT_READY,
            Condition.Status.True,
            "Heartbeat",
            "",
            Optional.of(Instant.parse("2026-11-29T00:00:00Z")));
    return new Node(
        ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY.withConditions(List.of(ready)));
  }

  @Test
  void anAdminCreatesANodeWithoutAStatus() {
    long before = store.currentRevision();

    var refused = catchThrowableOfType(ApiException.class, () -> admin.create(ready("a")));

    assertThat(refused.error().code()).isEqualTo(422);
    assertThat(refused.getMessage())
        .isEqualTo(
            "node/a is invalid: status: is set by the node's agent; create the node without it");
    assertThat(store.currentRevision()).as("nothing written").isEqualTo(before);
    assertThat(admin.create(new Node(ObjectMeta.named("b"), NodeSpec.EMPTY, null)).status())
        .isEqualTo(NodeStatus.EMPTY);
  }

  @Test
  void theNodesAgentRegistersItWithItsStatus() {
    var registered = agent.create(ready("a"));
    assertThat(registered.status().conditions()).hasSize(1);
    assertThat(admin.get(Kinds.NODE, "a").orElseThrow().status()).isEqualTo(registered.status());
  }
}
