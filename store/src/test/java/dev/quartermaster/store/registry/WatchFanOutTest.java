package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many watches of one kind share decoded events: each sees the whole history, and it is decoded
 * once.
 */
@Timeout(60)
class WatchFanOutTest {
  private static final int WATCHERS = 16;
  private static final int WRITERS = 3;
  private static final int OBJECTS_PER_WRITER =
      40; // x3 events each: well inside the decode cache's window

  @TempDir Path dir;
  SqliteStore store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new SystemEnv()); // writers on several threads
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void everyWatcherSeesTheSameCompleteOrderedHistoryDecodedOnce() throws Exception {
    api.create(node("before")); // history before the watches' start, which none of them may see
    long from = store.currentRevision();
    long decodesBefore = api.watchDecodes();
    long seedsBefore = api.watchSeeds();
    var recorders = new ArrayList<BlockingQueue<WatchEvent<Node>>>();
    var handles = new ArrayList<WatchHandle>();
    for (int i = 0; i < WATCHERS; i++) {
      handles.add(api.watch(Kinds.NODE, from, record(recorders)));
    }
    var halfway = new CountDownLatch(1);
    var done = new ArrayList<Future<?>>();
    try (var writers = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        done.add(
            writers.submit(
                () -> {
                  for (int j = 0; j < OBJECTS_PER_WRITER; j++) {
                    var created = api.create(node("w" + writer + "-" + j));
                    api.update(
                        created.withMetadata(
                            created.metadata().withLabels(Map.of("step", "updated"))));
                    api.delete(Kinds.NODE, created.metadata().name());
                    if (j == OBJECTS_PER_WRITER / 2) {
                      halfway.countDown();
                    }
                  }
                  return null;
                }));
      }
      // Mid-stream, a watch from the old revision: it replays what the others got live, then joins
      // them.
      assertThat(halfway.await(30, TimeUnit.SECONDS)).isTrue();
      handles.add(api.watch(Kinds.NODE, from, record(recorders)));
    }
    for (var writer : done) {
      writer.get(); // a writer's failure fails the test with its cause
    }
    long end = store.currentRevision();
    int expected = (int) (end - from);
    assertThat(expected).isEqualTo(WRITERS * OBJECTS_PER_WRITER * 3);

    var reference = take(recorders.getFirst(), expected);
    // Every write is one Node revision, so the complete history is exactly (from, end], in order.
    assertThat(reference)
        .extracting(WatchEvent::revision)
        .containsExactlyElementsOf(LongStream.rangeClosed(from + 1, end).boxed().toList());
    assertThat(reference)
        .filteredOn(e -> e.type() == WatchEvent.Type.DELETED)
        .hasSize(WRITERS * OBJECTS_PER_WRITER)
        .allSatisfy(
            e -> assertThat(e.object().metadata().labels()).containsEntry("step", "updated"));
    for (var recorder : recorders.subList(1, recorders.size())) {
      assertThat(take(recorder, expected)).containsExactlyElementsOf(reference);
    }
    // Each create and update was handed over by its writer or (when a watch saw it before the
    // writer
    // got back) decoded once; each delete's last state decoded once.
    assertThat(api.watchDecodes() - decodesBefore + api.watchSeeds() - seedsBefore)
        .as(
            "decodes and writer hand-overs for %d events fanned out to %d watches",
            expected, recorders.size())
        .isEqualTo(expected);
    assertThat(api.watchSeeds() - seedsBefore)
        .as("objects handed over by their writer")
        .isPositive();
    handles.forEach(WatchHandle::close);
  }

  private static Node node(String name) {
    return new Node(ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY);
  }

  private static WatchHandler<Node> record(List<BlockingQueue<WatchEvent<Node>>> recorders) {
    var events = new LinkedBlockingQueue<WatchEvent<Node>>();
    recorders.add(events);
    return new WatchHandler<>() {
      @Override
      public void onEvent(WatchEvent<Node> event) {
        events.add(event);
      }

      @Override
      public void onGone(long compactedRevision) {
        throw new AssertionError("nothing was compacted, yet gone at " + compactedRevision);
      }
    };
  }

  private static List<WatchEvent<Node>> take(BlockingQueue<WatchEvent<Node>> events, int count)
      throws InterruptedException {
    var taken = new ArrayList<WatchEvent<Node>>();
    for (int i = 0; i < count; i++) {
      var event = events.poll(30, TimeUnit.SECONDS);
      assertThat(event).as("event %d of %d within the bound", i + 1, count).isNotNull();
      taken.add(event);
    }
    return taken;
  }

  /**
   * A read of an object that a watch decoded already hands back an object decoded before, without
   * decoding again (a node, held apart from its write on, is the write's own object); a read of one
   * that changed since decodes it, with its revision.
   */
  @Test
  void aReadOfARecentlyWatchedObjectReusesTheWatchDecode() throws Exception {
    var events = new LinkedBlockingQueue<WatchEvent<Node>>();
    try (WatchHandle h =
        api.watch(
            Kinds.NODE,
            store.currentRevision(),
            new WatchHandler<>() {
              @Override
              public void onEvent(WatchEvent<Node> e) {
                events.add(e);
              }

              @Override
              public void onGone(long compactedRevision) {}
            })) {
      var created = api.create(node("seen"));
      var event = events.poll(30, TimeUnit.SECONDS);
      assertThat(event).isNotNull();
      long decodes = api.watchDecodes();
      var read = api.get(Kinds.NODE, "seen").orElseThrow();
      assertThat(read).isSameAs(created).isEqualTo(event.object());
      assertThat(read.metadata().revision()).isEqualTo(created.metadata().revision());
      assertThat(api.watchDecodes()).isEqualTo(decodes);
    }
    // Changed with no watch open: the read decodes the new bytes, never the old object.
    var current = api.get(Kinds.NODE, "seen").orElseThrow();
    var relabelled =
        api.update(current.withMetadata(current.metadata().withLabels(Map.of("x", "y"))));
    var read = api.get(Kinds.NODE, "seen").orElseThrow();
    assertThat(read.metadata().labels()).containsEntry("x", "y");
    assertThat(read.metadata().revision()).isEqualTo(relabelled.metadata().revision());
  }
}
