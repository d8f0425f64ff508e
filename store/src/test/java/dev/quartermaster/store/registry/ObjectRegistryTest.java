package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectRegistryTest {
  @TempDir Path dir;
  SqliteStore store;
  DeterministicEnv env = new DeterministicEnv(7);
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, env);
  }

  @AfterEach
  void close() {
    store.close();
  }

  static Node node(String name) {
    return new Node(ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY);
  }

  @Test
  void createSetsServerFieldsAndRejectsADuplicate() {
    var created = api.create(node("n1"));
    assertThat(created.metadata().uid()).hasSize(36);
    assertThat(created.metadata().generation()).isEqualTo(1);
    assertThat(created.metadata().revision()).isEqualTo(store.currentRevision());
    assertThat(created.metadata().createdAt()).contains(env.now());
    assertThat(api.get(Kinds.NODE, "n1")).contains(created);
    assertThatThrownBy(() -> api.create(node("n1")))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.AlreadyExists));
  }

  @Test
  void staleUpdateIsAConflictAndChangesNothing() {
    var v1 = api.create(node("n1"));
    var v2 = api.update(v1.withMetadata(v1.metadata().withLabels(Map.of("zone", "a"))));
    var before = store.currentRevision();
    assertThatThrownBy(
            () -> api.update(v1.withMetadata(v1.metadata().withLabels(Map.of("zone", "b")))))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.Conflict));
    assertThat(store.currentRevision()).isEqualTo(before);
    assertThat(api.get(Kinds.NODE, "n1")).contains(v2);
  }

  @Test
  void generationCountsSpecChangesOnlyAndStatusIsSeparate() {
    var v1 = api.create(node("n1"));
    var labelled = api.update(v1.withMetadata(v1.metadata().withLabels(Map.of("a", "b"))));
    assertThat(labelled.metadata().generation()).isEqualTo(1);
    var cordoned =
        api.update(new Node(labelled.metadata(), new NodeSpec(true, false), NodeStatus.EMPTY));
    assertThat(cordoned.metadata().generation()).isEqualTo(2);

    var ready =
        new NodeStatus(
            List.of(
                new Condition(
                    "AgentReady", Condition.Status.True, "Heartbeat", "", Optional.empty())),
            Optional.of(env.now()),
            "boot-1",
            "test",
            List.of());
    var withStatus = api.updateStatus(cordoned.withStatus(ready));
    assertThat(withStatus.status()).isEqualTo(ready);
    assertThat(withStatus.metadata().generation()).isEqualTo(2);
    // A spec update does not touch the status, even if the caller sends another one.
    var again =
        api.update(new Node(withStatus.metadata(), new NodeSpec(false, false), NodeStatus.EMPTY));
    assertThat(again.status()).isEqualTo(ready);
  }

  @Test
  void gracefulDeleteWaitsForFinalizers() {
    var v1 =
        api.create(
            node("n1")
                .withMetadata(
                    ObjectMeta.named("n1").withFinalizers(List.of("quartermaster.dev/agent"))));
    var result = api.delete(Kinds.NODE, "n1");
    assertThat(result).isInstanceOf(DeleteResult.Terminating.class);
    var deleting = api.get(Kinds.NODE, "n1").orElseThrow();
    assertThat(deleting.metadata().deletedAt()).isPresent();
    assertThat(api.delete(Kinds.NODE, "n1").object())
        .isEqualTo(deleting); // a second delete changes nothing
    assertThatThrownBy(
            () ->
                api.update(
                    deleting.withMetadata(
                        deleting
                            .metadata()
                            .withFinalizers(List.of("quartermaster.dev/agent", "x/y")))))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.Invalid));
    api.update(deleting.withMetadata(deleting.metadata().withFinalizers(List.of())));
    assertThat(api.get(Kinds.NODE, "n1")).isEmpty();
    assertThat(v1.metadata().finalizers()).containsExactly("quartermaster.dev/agent");
  }

  @Test
  void deleteWithoutFinalizersIsImmediate() {
    api.create(node("n1"));
    assertThat(api.delete(Kinds.NODE, "n1")).isInstanceOf(DeleteResult.Deleted.class);
    assertThat(api.get(Kinds.NODE, "n1")).isEmpty();
    assertThatThrownBy(() -> api.delete(Kinds.NODE, "n1"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NotFound));
  }

  @Test
  void badInputChangesNothing() {
    var before = store.currentRevision();
    assertThatThrownBy(() -> api.create(node("../x")))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.error().details())
                    .extracting(d -> d.field())
                    .contains("metadata.name"));
    assertThatThrownBy(() -> api.get(Kinds.NODE, "../x")).isInstanceOf(ApiException.class);
    assertThat(store.currentRevision()).isEqualTo(before);
  }

  @Test
  void listFiltersByLabelsAndReportsTheRevision() {
    api.create(node("a").withMetadata(ObjectMeta.named("a").withLabels(Map.of("gpu", "a100"))));
    api.create(node("b").withMetadata(ObjectMeta.named("b").withLabels(Map.of("gpu", "h100"))));
    var list = api.list(Kinds.NODE, LabelSelector.parse("gpu=h100"));
    assertThat(list.items()).extracting(n -> n.metadata().name()).containsExactly("b");
    assertThat(list.revision()).isEqualTo(store.currentRevision());
    assertThat(api.list(Kinds.TASK).items()).isEmpty();
  }

  @Test
  void watchReplaysChangesInOrderAsObjectEvents() throws Exception {
    var start = store.currentRevision();
    var a = api.create(node("a"));
    var a2 = api.update(a.withMetadata(a.metadata().withLabels(Map.of("x", "y"))));
    api.delete(Kinds.NODE, "a");
    var events = new LinkedBlockingQueue<WatchEvent<Node>>();
    try (var w = api.watch(Kinds.NODE, start, collect(events, new LinkedBlockingQueue<>()))) {
      var added = poll(events);
      var modified = poll(events);
      var deleted = poll(events);
      assertThat(added.type()).isEqualTo(WatchEvent.Type.ADDED);
      assertThat(added.object()).isEqualTo(a);
      assertThat(modified.type()).isEqualTo(WatchEvent.Type.MODIFIED);
      assertThat(modified.object()).isEqualTo(a2);
      assertThat(deleted.type()).isEqualTo(WatchEvent.Type.DELETED);
      assertThat(deleted.object().metadata().labels()).containsEntry("x", "y");
      assertThat(deleted.revision()).isEqualTo(store.currentRevision());
    }
  }

  @Test
  void watchFromACompactedRevisionIsGone() throws Exception {
    api.create(node("a"));
    api.create(node("b"));
    store.compact(store.currentRevision());
    var gone = new LinkedBlockingQueue<Long>();
    try (var w = api.watch(Kinds.NODE, 0, collect(new LinkedBlockingQueue<>(), gone))) {
      assertThat(gone.poll(30, TimeUnit.SECONDS)).isEqualTo(store.compactedRevision());
    }
  }

  private static <T> T poll(BlockingQueue<T> q) throws InterruptedException {
    var item = q.poll(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
    assertThat(item).as("event within the bound").isNotNull();
    return item;
  }

  private static WatchHandler<Node> collect(
      BlockingQueue<WatchEvent<Node>> events, BlockingQueue<Long> gone) {
    return new WatchHandler<>() {
      @Override
      public void onEvent(WatchEvent<Node> event) {
        events.add(event);
      }

      @Override
      public void onGone(long compactedRevision) {
        gone.add(compactedRevision);
      }
    };
  }
}
