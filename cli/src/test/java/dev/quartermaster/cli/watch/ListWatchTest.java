package dev.quartermaster.cli.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.cli.CliException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The list-then-watch loop, against a scripted client whose watches deliver their callbacks before
 * returning, so each test is one thread and one fixed sequence.
 */
class ListWatchTest {

  private static Node node(String name, long revision, Map<String, String> labels) {
    return new Node(ObjectMeta.named(name).withRevision(revision).withLabels(labels), null, null);
  }

  private static Node node(String name, long revision) {
    return node(name, revision, Map.of());
  }

  /** Records what the sink saw, one string per call. */
  private static final class RecordingSink implements WatchSink<Node> {
    final List<String> seen = new ArrayList<>();

    @Override
    public void listed(List<Node> objects) {
      seen.add(
          "listed "
              + objects.stream()
                  .map(n -> n.metadata().name() + "@" + n.metadata().revision())
                  .toList());
    }

    @Override
    public void changed(WatchEvent.Type type, Node object) {
      seen.add(type + " " + object.metadata().name() + "@" + object.metadata().revision());
    }

    @Override
    public void relisted() {
      seen.add("relisted");
    }
  }

  /** Lists answer from a queue of results; each watch runs the next script against its handler. */
  private static final class ScriptedClient implements ApiClient {
    final Deque<ObjectList<Node>> lists = new ArrayDeque<>();
    final Deque<BiConsumer<Long, WatchHandler<Node>>> watches = new ArrayDeque<>();
    final List<Long> watchedFrom = new ArrayList<>();

    @Override
    @SuppressWarnings("unchecked")
    public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
      var list = lists.removeFirst();
      return (ObjectList<T>)
          new ObjectList<>(
              list.items().stream().filter(n -> selector.matches(n.metadata().labels())).toList(),
              list.revision());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends ApiObject> WatchHandle watch(
        Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
      watchedFrom.add(afterRevision);
      watches.removeFirst().accept(afterRevision, (WatchHandler<Node>) handler);
      return () -> {};
    }

    @Override
    public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T create(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T update(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T updateStatus(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void printsTheListThenEachChange() throws InterruptedException {
    var client = new ScriptedClient();
    var sink = new RecordingSink();
    client.lists.add(new ObjectList<>(List.of(node("a", 1)), 1));
    var watch = new ListWatch<>(client, Kinds.NODE, LabelSelector.ALL, n -> true);
    client.watches.add(
        (from, h) -> {
          h.onEvent(new WatchEvent<>(WatchEvent.Type.ADDED, node("b", 2)));
          h.onEvent(new WatchEvent<>(WatchEvent.Type.MODIFIED, node("a", 3)));
          h.onEvent(new WatchEvent<>(WatchEvent.Type.DELETED, node("b", 4)));
          watch.stop();
        });

    watch.run(sink);

    assertThat(client.watchedFrom).containsExactly(1L);
    assertThat(sink.seen)
        .containsExactly("listed [a@1]", "ADDED b@2", "MODIFIED a@3", "DELETED b@4");
  }

  @Test
  void aCompactedHistoryIsRecoveredByListingAgain() throws InterruptedException {
    var client = new ScriptedClient();
    var sink = new RecordingSink();
    client.lists.add(new ObjectList<>(List.of(node("a", 1), node("b", 2)), 2));
    // Between the first list and the re-list: a changed, b deleted, c created; history compacted.
    client.lists.add(new ObjectList<>(List.of(node("a", 4), node("c", 5)), 9));
    var watch = new ListWatch<>(client, Kinds.NODE, LabelSelector.ALL, n -> true);
    client.watches.add((from, h) -> h.onGone(8));
    client.watches.add(
        (from, h) -> {
          h.onEvent(new WatchEvent<>(WatchEvent.Type.MODIFIED, node("c", 10)));
          watch.stop();
        });

    watch.run(sink);

    assertThat(client.watchedFrom).containsExactly(2L, 9L);
    assertThat(sink.seen)
        .containsExactly(
            "listed [a@1, b@2]",
            "relisted",
            "MODIFIED a@4",
            "ADDED c@5",
            "DELETED b@2",
            "MODIFIED c@10");
  }

  @Test
  void anObjectThatStopsMatchingTheSelectorLeavesAsDeleted() throws InterruptedException {
    var client = new ScriptedClient();
    var sink = new RecordingSink();
    client.lists.add(
        new ObjectList<>(List.of(node("a", 1, Map.of("gpu", "a100")), node("b", 1)), 1));
    var watch = new ListWatch<>(client, Kinds.NODE, LabelSelector.parse("gpu=a100"), n -> true);
    client.watches.add(
        (from, h) -> {
          h.onEvent(new WatchEvent<>(WatchEvent.Type.MODIFIED, node("b", 2)));
          h.onEvent(new WatchEvent<>(WatchEvent.Type.MODIFIED, node("a", 3)));
          watch.stop();
        });

    watch.run(sink);

    assertThat(sink.seen).containsExactly("listed [a@1]", "DELETED a@3");
  }

  @Test
  void aWatchThatKeepsEndingIsGivenUpWithItsReason() {
    var client = new ScriptedClient();
    client.lists.add(new ObjectList<>(List.of(), 1));
    for (int i = 0; i <= ListWatch.MAX_QUIET_RESTARTS; i++) {
      client.watches.add((from, h) -> h.onClosed("server shutting down"));
    }
    var watch = new ListWatch<>(client, Kinds.NODE, LabelSelector.ALL, n -> true);

    Assertions.assertThatThrownBy(() -> watch.run(new RecordingSink()))
        .isInstanceOf(CliException.class)
        .hasMessage("watch of nodes ended: server shutting down");
  }
}
