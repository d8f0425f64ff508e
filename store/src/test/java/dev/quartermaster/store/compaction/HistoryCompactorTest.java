package dev.quartermaster.store.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryCompactorTest {
  @TempDir Path dir;

  @Test
  void keepsTheNewestRevisionsOnEachTick() {
    var env = new DeterministicEnv(1);
    try (var store = SqliteStore.open(dir.resolve("s.db"))) {
      for (int i = 0; i < 30; i++) {
        store.txn(
            Txn.when(List.of(), List.of(new Txn.Op.Put("/k" + (i % 3), new byte[] {(byte) i}))));
      }
      try (var compactor = HistoryCompactor.start(store, env, 10, Duration.ofMinutes(1))) {
        env.advance(Duration.ofSeconds(59));
        assertThat(store.compactedRevision()).isZero();
        env.advance(Duration.ofSeconds(1));
        assertThat(store.compactedRevision()).isEqualTo(20);
        assertThat(store.range("/k", 0).kvs()).hasSize(3); // live keys survive
        env.advance(Duration.ofMinutes(5));
        assertThat(store.compactedRevision()).isEqualTo(20); // nothing new: nothing to do
        assertThat(compactor.compactNow()).isZero();
      }
      env.advance(Duration.ofMinutes(5));
      assertThat(env.pendingTasks()).isZero(); // closing stops the schedule
    }
  }
}
