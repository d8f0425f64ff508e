package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.TxnResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions that may wait (heartbeats) share a commit: they wait for company up to the store's
 * {@code mayWait}, any other write takes them along at once, a full batch does not wait, and
 * closing the store commits them. The wait here is an hour, so a waiting write can only have been
 * committed by one of those; the naive writer (no wait: {@link Duration#ZERO}) commits each alone.
 */
class WaitingCommitTest {
  @TempDir Path dir;

  private SqliteStore open(Duration mayWait) {
    return SqliteStore.open(
        dir.resolve("store.db"), SqliteStore.Options.defaults().withMayWait(mayWait));
  }

  private static Txn put(String key, Txn.Urgency urgency) {
    var txn = Txn.when(List.of(), List.of(new Op.Put(key, key.getBytes(StandardCharsets.UTF_8))));
    return urgency == Txn.Urgency.MAY_WAIT ? txn.mayWait() : txn;
  }

  private static List<CompletableFuture<TxnResult>> beats(SqliteStore store, int n) {
    var out = new ArrayList<CompletableFuture<TxnResult>>();
    for (int i = 0; i < n; i++) {
      var key = "/nodes/node-" + i;
      var done = new CompletableFuture<TxnResult>();
      Thread.ofVirtual().start(() -> done.complete(store.txn(put(key, Txn.Urgency.MAY_WAIT))));
      out.add(done);
    }
    return out;
  }

  /**
   * Polls (not a timed sleep) until the writer holds all of {@code beats} waiting for company, or
   * (a writer that does not wait) has answered them.
   */
  private static void awaitWaiting(SqliteStore store, List<CompletableFuture<TxnResult>> beats) {
    while (store.writesWaitingForCompany() < beats.size()
        && !beats.stream().allMatch(CompletableFuture::isDone)) {
      LockSupport.parkNanos(100_000);
    }
  }

  @Test
  void beatsWaitForAnotherWriteAndShareItsCommit() {
    try (var store = open(Duration.ofHours(1))) {
      long before = store.commits();
      var beats = beats(store, 20);
      awaitWaiting(store, beats);
      assertThat(beats).noneMatch(CompletableFuture::isDone);

      var urgent = store.txn(put("/tasks/t-1", Txn.Urgency.NOW));

      var revisions = beats.stream().map(f -> f.join().revision()).toList();
      assertThat(urgent.succeeded()).isTrue();
      assertThat(store.commits() - before).isEqualTo(1);
      assertThat(revisions).doesNotHaveDuplicates().allMatch(r -> r <= urgent.revision());
      assertThat(store.get("/nodes/node-19")).isPresent();
    }
  }

  @Test
  void aFullBatchCommitsWithoutWaiting() {
    try (var store = open(Duration.ofHours(1))) {
      long before = store.commits();
      var beats = beats(store, Writer.MAX_BATCH);
      beats.forEach(CompletableFuture::join);
      assertThat(store.commits() - before).isEqualTo(1);
    }
  }

  @Test
  void closingCommitsWhatWaitsAndItIsDurable() {
    List<CompletableFuture<TxnResult>> beats;
    try (var store = open(Duration.ofHours(1))) {
      beats = beats(store, 3);
      awaitWaiting(store, beats);
    }
    assertThat(beats).allMatch(f -> f.join().succeeded());
    try (var store = open(Duration.ofHours(1))) {
      assertThat(store.get("/nodes/node-2")).isPresent();
    }
  }

  @Test
  void theNaiveWriterCommitsEachBeatAlone() {
    try (var store = open(Duration.ZERO)) {
      long before = store.commits();
      for (int i = 0; i < 10; i++) {
        store.txn(put("/nodes/node-" + i, Txn.Urgency.MAY_WAIT));
      }
      assertThat(store.commits() - before).isEqualTo(10);
    }
  }
}
