package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's hold on a claim (its prepare state {@code Prepared}, its agent's finalizer) goes only by
 * that node's word ({@code Unprepared} first) or once it is fenced; and a fenced node takes no new
 * hold. Without the rule a controller (or an operator's write) could free devices a live node still
 * has set up for a running process.
 */
class NodeHoldGuardTest {
  private static final String FINALIZER = new AgentFinalizer("node-1").name();

  @TempDir Path dir;
  Store store;
  DeterministicEnv env = new DeterministicEnv(5);
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, env);
    api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** A claim node-1's agent took (its finalizer on) and prepared. */
  private ResourceClaim preparedOnNode1() {
    var c =
        api.create(
            new ResourceClaim(
                ObjectMeta.named("c"),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
                ResourceClaimStatus.EMPTY));
    c = api.update(c.withMetadata(c.metadata().withFinalizers(List.of(FINALIZER))));
    return prepare(c, PrepareState.Phase.Prepared);
  }

  private ResourceClaim prepare(ResourceClaim c, PrepareState.Phase phase) {
    var s = c.status();
    var prepare = new HashMap<>(s.prepare());
    prepare.put("node-1", new PrepareState(phase, "", List.of(), Optional.empty()));
    return api.updateStatus(
        c.withStatus(
            new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions())));
  }

  private static ResourceClaim withoutFinalizer(ResourceClaim c) {
    var f = new ArrayList<>(c.metadata().finalizers());
    f.remove(FINALIZER);
    return c.withMetadata(c.metadata().withFinalizers(f));
  }

  private static ResourceClaim withoutPrepareState(ResourceClaim c) {
    var s = c.status();
    var prepare = new HashMap<>(s.prepare());
    prepare.remove("node-1");
    return c.withStatus(
        new ResourceClaimStatus(s.allocation(), s.reservedFor(), prepare, s.conditions()));
  }

  private void node1(UnaryOperator<NodeSpec> change) {
    var n = api.get(Kinds.NODE, "node-1").orElseThrow();
    api.update(new Node(n.metadata(), change.apply(n.spec()), n.status()));
  }

  @Test
  void aPreparedClaimKeepsItsNodesFinalizerAndPrepareStateUntilTheNodeLetsGo() {
    var c = preparedOnNode1();
    assertThatThrownBy(() -> api.update(withoutFinalizer(c)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.is(Reason.Conflict)).isTrue();
              assertThat(e.getMessage())
                  .contains(
                      "is prepared on node node-1: a write may not drop finalizer "
                          + FINALIZER
                          + " while it is; node node-1's agent lets it go (Unprepared first), or,"
                          + " if the node is down, fence it (`qm node fence node-1`)");
            });
    assertThatThrownBy(() -> api.updateStatus(withoutPrepareState(c)))
        .hasMessageContaining("may not drop status.prepare[node-1]");
    // The agent's way: Unprepared, then its finalizer off; a deleted claim then goes.
    api.delete(Kinds.RESOURCE_CLAIM, "c");
    var unprepared =
        prepare(api.get(Kinds.RESOURCE_CLAIM, "c").orElseThrow(), PrepareState.Phase.Unprepared);
    api.update(withoutFinalizer(unprepared));
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "c")).isEmpty();
  }

  @Test
  void onceTheNodeIsFencedTheFenceMaySettleItsHold() {
    var c = preparedOnNode1();
    api.delete(Kinds.RESOURCE_CLAIM, "c");
    node1(s -> new NodeSpec(true, true));
    var deleting = api.get(Kinds.RESOURCE_CLAIM, "c").orElseThrow();
    var settled = api.updateStatus(withoutPrepareState(deleting));
    api.update(withoutFinalizer(settled));
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "c")).isEmpty();
  }

  @Test
  void aFencedNodeTakesNoNewHold() {
    var c =
        api.create(
            new ResourceClaim(
                ObjectMeta.named("c"),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
                ResourceClaimStatus.EMPTY));
    node1(s -> new NodeSpec(true, true));
    assertThatThrownBy(() -> prepare(c, PrepareState.Phase.Prepared))
        .hasMessageContaining(
            "node node-1 is fenced, and a fenced node takes no new hold on a claim");
    assertThatThrownBy(
            () -> api.update(c.withMetadata(c.metadata().withFinalizers(List.of(FINALIZER)))))
        .hasMessageContaining("node node-1 is fenced");
    node1(s -> new NodeSpec(s.unschedulable(), false));
    assertThat(prepare(c, PrepareState.Phase.Prepared).status().prepare()).containsKey("node-1");
  }

  @Test
  void withoutTheRuleAWriterFreesALiveNodesHold() {
    preparedOnNode1();
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    naive.delete(Kinds.RESOURCE_CLAIM, "c");
    naive.update(withoutFinalizer(naive.get(Kinds.RESOURCE_CLAIM, "c").orElseThrow()));
    assertThat(naive.get(Kinds.RESOURCE_CLAIM, "c")).isEmpty();
  }
}
