package dev.quartermaster.store;

import static dev.quartermaster.store.StoreFixture.bytes;
import static dev.quartermaster.store.StoreFixture.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Transactions: compare-and-set, failure branches, atomicity, and CAS under contention. */
// Watches and stores are opened in try-with-resources only to be closed, hence "try".
@SuppressWarnings("try")
public interface TxnContract extends StoreFixture {

  @Test
  default void modRevisionZeroMeansAbsent() {
    TxnResult created = putIf("/a", 0, "first");
    assertThat(created.succeeded()).isTrue();
    assertThat(created.written()).extracting(KeyValue::key).containsExactly("/a");

    TxnResult again = putIf("/a", 0, "second");
    assertThat(again.succeeded()).isFalse();
    assertThat(again.revision()).isEqualTo(created.revision());
    assertThat(text(store().get("/a").orElseThrow())).isEqualTo("first");
  }

  @Test
  default void compareHoldsOnlyForTheCurrentModRevision() {
    long r1 = put("/a", "1").revision();
    long r2 = put("/a", "2").revision();
    assertThat(putIf("/a", r1, "stale").succeeded()).isFalse();
    TxnResult fresh = putIf("/a", r2, "3");
    assertThat(fresh.succeeded()).isTrue();
    assertThat(store().get("/a").orElseThrow().version()).isEqualTo(3);

    delete("/a");
    assertThat(putIf("/a", fresh.revision(), "deleted meanwhile").succeeded()).isFalse();
    assertThat(putIf("/a", 0, "absent again").succeeded()).isTrue();
  }

  @Test
  default void failedCompareWritesNothingAndRunsTheFailureBranch() {
    long before = put("/a", "1").revision();
    TxnResult result =
        store()
            .txn(
                new Txn(
                    List.of(new Txn.Compare.ModRevision("/a", before + 100)),
                    List.of(new Txn.Op.Put("/yes", bytes("y")), new Txn.Op.Delete("/a")),
                    List.of(new Txn.Op.Put("/no", bytes("n")))));
    assertThat(result.succeeded()).isFalse();
    assertThat(result.revision()).isEqualTo(before + 1);
    assertThat(result.written()).extracting(KeyValue::key).containsExactly("/no");
    assertThat(store().get("/yes")).isEmpty();
    assertThat(store().get("/a")).isPresent();
    assertThat(store().get("/no").orElseThrow().modRevision()).isEqualTo(before + 1);
  }

  @Test
  default void failedCompareWithoutFailureOpsUsesNoRevision() {
    long before = put("/a", "1").revision();
    TxnResult result = putIf("/a", 0, "x");
    assertThat(result.succeeded()).isFalse();
    assertThat(result.revision()).isEqualTo(before);
    assertThat(result.written()).isEmpty();
    assertThat(store().currentRevision()).isEqualTo(before);
  }

  @Test
  default void allOpsOfATransactionLandAtOneRevisionAndAreWatchedTogether() {
    put("/t/c", "old");
    long before = store().currentRevision();
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("/t/", before, recorder)) {
      TxnResult result =
          store()
              .txn(
                  Txn.when(
                      List.of(),
                      List.of(
                          new Txn.Op.Put("/t/b", bytes("b")),
                          new Txn.Op.Delete("/t/c"),
                          new Txn.Op.Put("/t/a", bytes("a")))));
      long rev = result.revision();
      assertThat(rev).isEqualTo(before + 1);
      assertThat(result.written()).extracting(KeyValue::key).containsExactly("/t/b", "/t/a");
      assertThat(store().range("/t/", 0).kvs())
          .extracting(KeyValue::modRevision)
          .containsExactly(rev, rev);

      List<StoreEvent> events = recorder.events(3);
      assertThat(events).extracting(e -> e.kv().key()).containsExactly("/t/b", "/t/c", "/t/a");
      assertThat(events)
          .extracting(StoreEvent::type)
          .containsExactly(StoreEvent.Type.PUT, StoreEvent.Type.DELETE, StoreEvent.Type.PUT);
      assertThat(Recorder.revisions(events)).containsOnly(rev);
    }
  }

  @Test
  default void touchingAKeyTwiceInOneBranchIsRejected() {
    long before = store().currentRevision();
    assertThatThrownBy(
            () ->
                store()
                    .txn(
                        Txn.when(
                            List.of(),
                            List.of(new Txn.Op.Put("/a", bytes("1")), new Txn.Op.Delete("/a")))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().currentRevision()).isEqualTo(before);
    assertThat(store().get("/a")).isEmpty();
  }

  @Test
  default void concurrentCasIncrementsLoseNoUpdate() throws Exception {
    int threads = 8;
    int increments = 25;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<Long>>> results = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int t = 0; t < threads; t++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  List<Long> revisions = new ArrayList<>();
                  for (int i = 0; i < increments; i++) {
                    revisions.add(increment("/counter"));
                  }
                  return revisions;
                }));
      }
      start.countDown();
    }
    List<Long> all = new ArrayList<>();
    for (Future<List<Long>> f : results) {
      all.addAll(f.get());
    }
    KeyValue counter = store().get("/counter").orElseThrow();
    assertThat(text(counter)).isEqualTo(String.valueOf(threads * increments));
    assertThat(counter.version()).isEqualTo(threads * increments);
    assertThat(all).doesNotHaveDuplicates().hasSize(threads * increments);
  }

  /** Read, add one, write back if nobody wrote in between; retry otherwise. */
  private long increment(String key) {
    while (true) {
      Optional<KeyValue> current = store().get(key);
      long n = current.map(kv -> Long.parseLong(text(kv))).orElse(0L);
      TxnResult result =
          putIf(key, current.map(KeyValue::modRevision).orElse(0L), String.valueOf(n + 1));
      if (result.succeeded()) {
        return result.revision();
      }
    }
  }

  @Test
  default void exactlyOneOfManyConcurrentCreatesWins() throws Exception {
    int contenders = 16;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<TxnResult>> results = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < contenders; i++) {
        String mine = "contender-" + i;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return putIf("/leader", 0, mine);
                }));
      }
      start.countDown();
    }
    List<TxnResult> winners = new ArrayList<>();
    for (Future<TxnResult> f : results) {
      if (f.get().succeeded()) {
        winners.add(f.get());
      }
    }
    assertThat(winners).hasSize(1);
    assertThat(store().get("/leader")).contains(winners.getFirst().written().getFirst());
  }
}
