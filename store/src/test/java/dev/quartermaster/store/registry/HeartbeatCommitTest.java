package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.ForwardingStore;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.TxnResult;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry lets a node's heartbeat, and nothing else, wait for company in the store's commit
 * ({@link Txn.Urgency#MAY_WAIT}): any write that others act on is committed at once.
 */
class HeartbeatCommitTest {
  @TempDir Path dir;
  private SqliteStore sqlite;
  private final List<Txn.Urgency> seen = new ArrayList<>();
  private ObjectRegistry api;

  @BeforeEach
  void open() {
    sqlite = SqliteStore.open(dir.resolve("store.db"));
    var recording =
        new ForwardingStore(sqlite) {
          @Override
          public TxnResult txn(Txn txn) {
            seen.add(txn.urgency());
            return delegate.txn(txn);
          }
        };
    api = new ObjectRegistry(recording, new DeterministicEnv(5));
    api.create(
        new Node(
            ObjectMeta.named("node-1"),
            NodeSpec.EMPTY,
            new NodeStatus(List.of(), Optional.of(Instant.EPOCH), "boot-1", "v1", List.of())));
    seen.clear();
  }

  @AfterEach
  void close() {
    sqlite.close();
  }

  private Txn.Urgency status(UnaryOperator<NodeStatus> change) {
    var n = api.get(Kinds.NODE, "node-1").orElseThrow();
    api.updateStatus(n.withStatus(change.apply(n.status())));
    return seen.getLast();
  }

  @Test
  void aHeartbeatMayWait() {
    assertThat(status(s -> s.withHeartbeat(Optional.of(Instant.EPOCH.plusSeconds(10)))))
        .isEqualTo(Txn.Urgency.MAY_WAIT);
  }

  @Test
  void aHeartbeatWithAnythingElseIsCommittedAtOnce() {
    assertThat(
            status(
                s ->
                    new NodeStatus(
                        List.of(
                            new Condition(
                                "AgentReady",
                                Condition.Status.False,
                                "Stopped",
                                "",
                                Optional.empty())),
                        Optional.of(Instant.EPOCH.plusSeconds(10)),
                        s.bootId(),
                        s.agentVersion(),
                        s.computeDomains())))
        .isEqualTo(Txn.Urgency.NOW);
    assertThat(
            status(
                s ->
                    new NodeStatus(
                        s.conditions(),
                        Optional.of(Instant.EPOCH.plusSeconds(20)),
                        "boot-2",
                        s.agentVersion(),
                        s.computeDomains())))
        .isEqualTo(Txn.Urgency.NOW);
  }

  @Test
  void aWriteThatMovesNothingIsNoHeartbeat() {
    assertThat(status(s -> s)).isEqualTo(Txn.Urgency.NOW);
  }

  @Test
  void specAndLabelWritesAreCommittedAtOnce() {
    var n = api.get(Kinds.NODE, "node-1").orElseThrow();
    api.update(n.withMetadata(n.metadata().withLabels(Map.of("rack", "r1"))));
    assertThat(seen.getLast()).isEqualTo(Txn.Urgency.NOW);
    var m = api.get(Kinds.NODE, "node-1").orElseThrow();
    api.update(new Node(m.metadata(), new NodeSpec(true, false), m.status()));
    assertThat(seen.getLast()).isEqualTo(Txn.Urgency.NOW);
  }
}
