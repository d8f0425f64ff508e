package dev.quartermaster.store;

import static dev.quartermaster.store.StoreFixture.bytes;
import static dev.quartermaster.store.StoreFixture.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Watches: replay, resume, hand-over to live events, filtering, previous values, closing. */
// Watches and stores are opened in try-with-resources only to be closed, hence "try".
@SuppressWarnings("try")
public interface WatchContract extends StoreFixture {

  /** Writes a-put, b-put, a-put, b-delete, c-put; returns their revisions. */
  private List<Long> writeHistory(String prefix) {
    return List.of(
        put(prefix + "a", "a1").revision(),
        put(prefix + "b", "b1").revision(),
        put(prefix + "a", "a2").revision(),
        delete(prefix + "b").revision(),
        put(prefix + "c", "c1").revision());
  }

  @Test
  default void watchFromZeroReplaysEverythingInOrder() {
    List<Long> revisions = writeHistory("/w/");
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("", 0, recorder)) {
      List<StoreEvent> events = recorder.events(5);
      assertThat(Recorder.revisions(events)).isEqualTo(revisions);
      assertThat(events)
          .extracting(e -> e.kv().key())
          .containsExactly("/w/a", "/w/b", "/w/a", "/w/b", "/w/c");
      assertThat(events)
          .extracting(StoreEvent::type)
          .containsExactly(
              StoreEvent.Type.PUT,
              StoreEvent.Type.PUT,
              StoreEvent.Type.PUT,
              StoreEvent.Type.DELETE,
              StoreEvent.Type.PUT);
      assertThat(text(events.get(2).kv())).isEqualTo("a2");
      assertThat(events.get(2).kv().version()).isEqualTo(2);
      assertSentinelIsNext(recorder, "/w/");
    }
  }

  /**
   * A watch says when its replay reached the revision current when it began (the revision a
   * server's first bookmark names), after every replayed change and before any later one: for a
   * prefix with history, for a quiet prefix (no change to say it), and from the current revision.
   */
  @Test
  default void aWatchSaysWhenItsReplayReachedTheRevisionItBeganAt() {
    writeHistory("/w/");
    long began = store().currentRevision();
    Recorder all = new Recorder();
    Recorder quiet = new Recorder();
    Recorder fromNow = new Recorder();
    try (Watch a = store().watch("/w/", 0, all);
        Watch q = store().watch("/quiet/", 0, quiet);
        Watch n = store().watch("/w/", began, fromNow)) {
      assertThat(all.events(5)).hasSize(5);
      assertThat(all.awaitCaughtUp()).isGreaterThanOrEqualTo(began);
      assertThat(all.eventsBeforeCaughtUp()).isEqualTo(5);
      assertThat(quiet.awaitCaughtUp()).isGreaterThanOrEqualTo(began);
      assertThat(quiet.eventsBeforeCaughtUp()).isZero();
      assertThat(fromNow.awaitCaughtUp()).isGreaterThanOrEqualTo(began);
      long later = put("/w/z", "1").revision();
      assertThat(all.nextEvent().revision()).isEqualTo(later);
      assertThat(fromNow.nextEvent().revision()).isEqualTo(later);
      assertThat(all.caughtUpBroken()).isEmpty();
      assertThat(fromNow.caughtUpBroken()).isEmpty();
    }
  }

  @Test
  default void watchResumesAfterTheGivenRevision() {
    List<Long> revisions = writeHistory("/w/");
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("/w/", revisions.get(1), recorder)) {
      assertThat(Recorder.revisions(recorder.events(3))).isEqualTo(revisions.subList(2, 5));
      assertSentinelIsNext(recorder, "/w/");
    }
  }

  @Test
  default void watchFromTheCurrentOrAFutureRevisionGetsOnlyLaterChanges() {
    long now = put("/w/a", "1").revision();
    Recorder fromNow = new Recorder();
    Recorder fromFuture = new Recorder();
    try (Watch a = store().watch("/w/", now, fromNow);
        Watch b = store().watch("/w/", now + 2, fromFuture)) {
      long r1 = put("/w/b", "1").revision();
      long r2 = put("/w/c", "1").revision();
      long r3 = put("/w/d", "1").revision();
      assertThat(Recorder.revisions(fromNow.events(3))).containsExactly(r1, r2, r3);
      assertThat(Recorder.revisions(fromFuture.events(1))).containsExactly(r3);
    }
  }

  @Test
  default void replayHandsOverToLiveEventsWithoutGapOrDuplicate() throws Exception {
    int writers = 4;
    int writesEach = 60;
    List<Long> committed = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch halfway = new CountDownLatch(writers * writesEach / 2);
    Recorder recorder = new Recorder();
    long after;
    Watch watch;
    List<Future<?>> done = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < writesEach; i++) {
                    committed.add(put("/live/" + writer + "/" + i, "v").revision());
                    halfway.countDown();
                  }
                  return null;
                }));
      }
      // Start watching from the middle of the history while the writers keep going.
      long deadline = System.nanoTime() + AWAIT.toNanos();
      while (!halfway.await(100, TimeUnit.MILLISECONDS)) {
        for (Future<?> f : done) {
          if (f.isDone()) {
            f.get(); // a writer's failure shows as itself, not as a timeout
          }
        }
        assertThat(System.nanoTime())
            .as("half of the writes committed within %s", AWAIT)
            .isLessThan(deadline);
      }
      after = store().currentRevision() - 10;
      watch = store().watch("/live/", after, recorder);
    }
    for (Future<?> f : done) {
      f.get(); // a writer's failure shows here
    }
    try (watch) {
      List<Long> expected = committed.stream().filter(r -> r > after).sorted().toList();
      assertThat(expected)
          .isEqualTo(LongStream.rangeClosed(after + 1, expected.getLast()).boxed().toList());
      assertThat(Recorder.revisions(recorder.eventsThrough(expected.getLast())))
          .isEqualTo(expected);
      assertSentinelIsNext(recorder, "/live/");
    }
  }

  /**
   * Writes under {@code prefix}: for route a, for route b, for everyone, a delete for a and b, for
   * no route, for a; returns the revisions a watch of route a must hear.
   */
  private List<Long> writeRoutedHistory(String prefix, List<Long> all) {
    var a = Audience.routes(java.util.Set.of("a"));
    var b = Audience.routes(java.util.Set.of("b"));
    var mustHear = new ArrayList<Long>();
    mustHear.add(routed(new Txn.Op.Put(prefix + "1", bytes("1"), a), all));
    routed(new Txn.Op.Put(prefix + "2", bytes("2"), b), all);
    mustHear.add(routed(new Txn.Op.Put(prefix + "3", bytes("3")), all));
    mustHear.add(
        routed(new Txn.Op.Delete(prefix + "1", Audience.routes(java.util.Set.of("a", "b"))), all));
    routed(new Txn.Op.Put(prefix + "4", bytes("4"), Audience.routes(java.util.Set.of())), all);
    mustHear.add(routed(new Txn.Op.Put(prefix + "5", bytes("5"), a), all));
    return mustHear;
  }

  private long routed(Txn.Op op, List<Long> all) {
    long revision = store().txn(Txn.when(List.of(), List.of(op))).revision();
    all.add(revision);
    return revision;
  }

  @Test
  default void aRoutedWatchHearsEveryChangeOfItsRouteInOrderAndAnUnroutedOneHearsAll() {
    Recorder routed = new Recorder();
    Recorder unrouted = new Recorder();
    long from = store().currentRevision();
    try (Watch r = store().watch("/r/", "a", from, routed);
        Watch u = store().watch("/r/", from, unrouted)) {
      var all = new ArrayList<Long>();
      var mustHear = writeRoutedHistory("/r/", all);
      assertThat(Recorder.revisions(unrouted.events(all.size()))).isEqualTo(all);
      // A store may tell a route more than it must (etcd does not route), never less, never out of
      // order.
      var heard = Recorder.revisions(routed.eventsThrough(mustHear.getLast()));
      assertThat(heard).isSorted().doesNotHaveDuplicates().containsAll(mustHear);
      assertThat(all).containsAll(heard);
      assertSentinelIsNext(routed, "/r/");
    }
  }

  @Test
  default void watchSeesOnlyKeysUnderItsPrefix() {
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("/a/", 0, recorder)) {
      put("/ab/x", "no");
      long r1 = put("/a/x", "yes").revision();
      put("/b", "no");
      put("/a", "no");
      long r2 = put("/a/y/z", "yes").revision();
      List<StoreEvent> events = recorder.events(2);
      assertThat(Recorder.revisions(events)).containsExactly(r1, r2);
      assertSentinelIsNext(recorder, "/a/");
    }
  }

  @Test
  default void deleteEventsCarryTheirRevisionAndThePreviousValue() {
    Recorder live = new Recorder();
    long created = put("/d/k", "v1").revision();
    long updated = put("/d/k", "v2").revision();
    try (Watch ignored = store().watch("/d/", updated, live)) {
      long deleted = delete("/d/k").revision();
      StoreEvent event = live.nextEvent();
      assertDelete(event, deleted, created, updated);

      Recorder replayed = new Recorder();
      try (Watch again = store().watch("/d/", updated, replayed)) {
        assertDelete(replayed.nextEvent(), deleted, created, updated);
      }
    }
  }

  private static void assertDelete(StoreEvent event, long deleted, long created, long updated) {
    assertThat(event.type()).isEqualTo(StoreEvent.Type.DELETE);
    assertThat(event.revision()).isEqualTo(deleted);
    assertThat(event.kv().key()).isEqualTo("/d/k");
    assertThat(event.kv().value()).isEmpty();
    assertThat(event.previous()).contains(new KeyValue("/d/k", bytes("v2"), created, updated, 2));
  }

  @Test
  default void putEventsCarryThePreviousValueOfAnUpdateOnly() {
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("/p/", 0, recorder)) {
      long created = put("/p/k", "v1").revision();
      long updated = put("/p/k", "v2").revision();
      delete("/p/k");
      long recreated = put("/p/k", "v3").revision();
      List<StoreEvent> events = recorder.events(4);
      assertThat(events.get(0).previous()).isEmpty();
      assertThat(events.get(1).previous())
          .contains(new KeyValue("/p/k", bytes("v1"), created, created, 1));
      assertThat(events.get(1).kv())
          .isEqualTo(new KeyValue("/p/k", bytes("v2"), created, updated, 2));
      assertThat(events.get(3).previous()).isEmpty();
      assertThat(events.get(3).kv())
          .isEqualTo(new KeyValue("/p/k", bytes("v3"), recreated, recreated, 1));
    }
  }

  @Test
  default void noEventArrivesAfterCloseReturns() {
    Recorder closed = new Recorder();
    Watch watch = store().watch("/c/", store().currentRevision(), closed);
    long first = put("/c/1", "1").revision();
    assertThat(closed.nextEvent().revision()).isEqualTo(first);
    watch.close();

    put("/c/2", "2");
    // A second watch is the sentinel: once it has seen the later writes, so would the first.
    Recorder sentinel = new Recorder();
    try (Watch ignored = store().watch("/c/", first, sentinel)) {
      long last = put("/c/3", "3").revision();
      sentinel.eventsThrough(last);
    }
    assertThat(closed.poll()).isEmpty();
  }

  @Test
  default void aListenerMayCloseItsOwnWatch() throws Exception {
    CompletableFuture<Watch> self = new CompletableFuture<>();
    CompletableFuture<Void> closedItself = new CompletableFuture<>();
    List<StoreEvent> seen = Collections.synchronizedList(new ArrayList<>());
    Watch watch =
        store()
            .watch(
                "/s/",
                0,
                new WatchListener() {
                  @Override
                  public void onEvent(StoreEvent event) {
                    seen.add(event);
                    self.join()
                        .close(); // from inside the listener: must neither deadlock nor deliver
                    // more
                    closedItself.complete(null);
                  }

                  @Override
                  public void onCompacted(long compactedRevision) {
                    seen.add(null); // fails the size check below
                  }
                });
    self.complete(watch);
    put("/s/1", "1");
    put("/s/2", "2");
    // The first event's call has closed the watch (a deadlock would time out here). The sentinel
    // below only shows that both events were there to deliver: on its own it could finish before
    // this watch's thread made its first call, and the close after it would then come first.
    closedItself.get(10, java.util.concurrent.TimeUnit.SECONDS);
    Recorder sentinel = new Recorder();
    try (Watch ignored = store().watch("/s/", 0, sentinel)) {
      sentinel.events(2);
    }
    watch.close(); // closing again is harmless
    assertThat(seen).hasSize(1);
  }

  @Test
  default void closingTheStoreEndsItsWatches() {
    Recorder recorder = new Recorder();
    store().watch("/", 0, recorder);
    put("/x", "1");
    assertThat(recorder.nextEvent().kv().key()).isEqualTo("/x");
    closeStore();
    assertThat(recorder.awaitClosed()).isNotBlank();
  }

  /**
   * Writes a sentinel under {@code prefix} and asserts it is the very next thing the watch tells.
   */
  private void assertSentinelIsNext(Recorder recorder, String prefix) {
    long rev = put(prefix + "~sentinel", "s").revision();
    Recorder.Signal next = recorder.next();
    assertThat(next).isInstanceOf(Recorder.Signal.Event.class);
    assertThat(((Recorder.Signal.Event) next).event().revision()).isEqualTo(rev);
  }
}
