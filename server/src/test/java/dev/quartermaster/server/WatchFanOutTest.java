package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many HTTP watches of one kind write shared lines: each sees the whole history, and each event is
 * encoded once.
 */
@Timeout(60)
class WatchFanOutTest {
  private static final int WATCHERS = 12;
  private static final int WRITERS = 3;
  private static final int OBJECTS_PER_WRITER =
      20; // x3 events each: well inside the line cache's window

  @TempDir Path dataDir;
  SqliteStore store;
  ObjectRegistry registry;
  TestServer t;

  @BeforeEach
  void start() throws IOException {
    store = SqliteStore.open(dataDir.resolve("store.db"));
    registry = new ObjectRegistry(store, new SystemEnv());
    t = TestServer.start(registry, dataDir);
  }

  @AfterEach
  void stop() {
    t.close();
    store.close();
  }

  @Test
  void everyStreamCarriesTheSameCompleteOrderedHistoryEncodedOnce() throws Exception {
    t.client.create(
        Samples.node("before")); // history before the watches' start, which none of them may see
    long from = store.currentRevision();
    var recorders = new ArrayList<RecordingHandler<Node>>();
    var handles = new ArrayList<WatchHandle>();
    for (int i = 0; i < WATCHERS; i++) {
      recorders.add(new RecordingHandler<>());
      handles.add(t.client.watch(Kinds.NODE, from, recorders.getLast()));
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
                    var created = t.client.create(Samples.node("w" + writer + "-" + j));
                    t.client.update(
                        created.withMetadata(
                            created.metadata().withLabels(Map.of("step", "updated"))));
                    t.client.delete(Kinds.NODE, created.metadata().name());
                    if (j == OBJECTS_PER_WRITER / 2) {
                      halfway.countDown();
                    }
                  }
                  return null;
                }));
      }
      // Mid-stream, a stream from the old revision: it replays what the others got live, then joins
      // them.
      assertThat(halfway.await(30, TimeUnit.SECONDS)).isTrue();
      recorders.add(new RecordingHandler<>());
      handles.add(t.client.watch(Kinds.NODE, from, recorders.getLast()));
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
    for (var recorder : recorders.subList(1, recorders.size())) {
      assertThat(take(recorder, expected)).containsExactlyElementsOf(reference);
    }
    assertThat(t.server.eventLines().encodes())
        .as("lines encoded for %d events streamed to %d watches", expected, recorders.size())
        .isEqualTo(expected);
    handles.forEach(WatchHandle::close);
  }

  /**
   * A transaction that writes many objects (a batch of allocations) is one revision: each of its
   * objects is still encoded once for all streams. When the lines were kept one per revision they
   * pushed each other out, and each stream encoded most of them again.
   */
  @Test
  void theObjectsOfOneTransactionAreEachEncodedOnceForAllStreams() throws Exception {
    long from = store.currentRevision();
    var recorders = new ArrayList<RecordingHandler<Node>>();
    var handles = new ArrayList<WatchHandle>();
    for (int i = 0; i < WATCHERS; i++) {
      recorders.add(new RecordingHandler<>());
      handles.add(t.client.watch(Kinds.NODE, from, recorders.getLast()));
    }
    long before = t.server.eventLines().encodes();
    int batch = 24;
    var writes = new ArrayList<Write>();
    for (int i = 0; i < batch; i++) {
      writes.add(new Write.Create(Samples.node("batch-" + i)));
    }
    registry.commit(writes); // in-process: over HTTP the API takes one object per request
    for (var recorder : recorders) {
      assertThat(take(recorder, batch)).extracting(WatchEvent::revision).containsOnly(from + 1);
    }
    assertThat(t.server.eventLines().encodes() - before)
        .as(
            "lines encoded for %d objects of one transaction streamed to %d watches",
            batch, WATCHERS)
        .isEqualTo(batch);
    handles.forEach(WatchHandle::close);
  }

  private static List<WatchEvent<Node>> take(RecordingHandler<Node> recorder, int count) {
    var taken = new ArrayList<WatchEvent<Node>>();
    for (int i = 0; i < count; i++) {
      taken.add(recorder.nextEvent());
    }
    return taken;
  }
}
