package dev.quartermaster.store;

import static dev.quartermaster.store.StoreFixture.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Compaction: history at and after the compacted revision stays exact; older history is refused.
 */
// Watches and stores are opened in try-with-resources only to be closed, hence "try".
@SuppressWarnings("try")
public interface CompactionContract extends StoreFixture {

  /** A history with updates and deletes on both sides of the revision it returns. */
  private long historyAroundCompaction() {
    put("/h/a", "a1");
    put("/h/b", "b1");
    put("/h/a", "a2");
    delete("/h/b"); // deleted before the compaction: must not come back
    put("/h/gone", "x");
    long compactAt = delete("/h/gone").revision(); // a tombstone exactly at the compacted revision
    put("/h/a", "a3");
    put("/h/c", "c1");
    delete("/h/c");
    put("/h/b", "b2"); // re-created after the compaction
    return compactAt;
  }

  @Test
  default void readsAtAndAfterTheCompactedRevisionAreUnchanged() {
    long compactAt = historyAroundCompaction();
    long now = store().currentRevision();
    List<Range> before =
        List.of(
            store().range("/h/", compactAt),
            store().range("/h/", compactAt + 1),
            store().range("/h/", now));

    store().compact(compactAt);

    assertThat(store().compactedRevision()).isEqualTo(compactAt);
    assertThat(store().currentRevision()).isEqualTo(now);
    List<Range> after =
        List.of(
            store().range("/h/", compactAt),
            store().range("/h/", compactAt + 1),
            store().range("/h/", now));
    for (int i = 0; i < before.size(); i++) {
      assertThat(after.get(i).kvs()).as("range %d", i).isEqualTo(before.get(i).kvs());
    }
    assertThat(keys(store().range("/h/", compactAt))).containsExactly("/h/a");
    assertThat(store().get("/h/gone")).isEmpty();
    assertThat(store().get("/h/b").orElseThrow().version()).isEqualTo(1);
    assertThatThrownBy(() -> store().range("/h/", compactAt - 1))
        .isInstanceOfSatisfying(
            CompactedException.class, e -> assertThat(e.compactedRevision()).isEqualTo(compactAt));
  }

  @Test
  default void compactionKeepsLiveKeysAsTheyWere() {
    KeyValue old = put("/k/old", "v").written().getFirst();
    for (int i = 0; i < 5; i++) {
      put("/k/busy", "v" + i);
    }
    delete("/k/busy");
    long now = store().currentRevision();
    store().compact(now); // the newest transaction is a delete: the revision must not move back
    assertThat(store().get("/k/old")).contains(old);
    assertThat(store().get("/k/busy")).isEmpty();
    assertThat(store().currentRevision()).isEqualTo(now);
    assertThat(put("/k/next", "v").revision()).isEqualTo(now + 1);
  }

  @Test
  default void watchFromBelowTheCompactedRevisionIsToldOnceAndEnds() {
    long compactAt = historyAroundCompaction();
    store().compact(compactAt);
    Recorder recorder = new Recorder();
    try (Watch ignored = store().watch("/h/", compactAt - 1, recorder)) {
      assertThat(recorder.awaitCompacted()).isEqualTo(compactAt);
      // Later writes must not reach the ended watch; a second watch shows they were published.
      Recorder sentinel = new Recorder();
      try (Watch s = store().watch("/h/", store().currentRevision(), sentinel)) {
        long rev = put("/h/after", "x").revision();
        sentinel.eventsThrough(rev);
      }
      assertThat(recorder.poll()).isEmpty();
    }
  }

  @Test
  default void watchFromTheCompactedRevisionReplaysWhatFollows() {
    long compactAt = historyAroundCompaction();
    Recorder before = new Recorder();
    List<StoreEvent> expected;
    try (Watch ignored = store().watch("/h/", compactAt, before)) {
      expected = before.eventsThrough(store().currentRevision());
    }
    store().compact(compactAt);
    Recorder after = new Recorder();
    try (Watch ignored = store().watch("/h/", compactAt, after)) {
      // Same events, previous values included: those the compaction kept are at or after it.
      assertThat(after.events(expected.size())).isEqualTo(expected);
    }
  }

  @Test
  default void compactingOutsideTheHistoryFails() {
    long rev = put("/a", "1").revision();
    put("/a", "2");
    assertThatThrownBy(() -> store().compact(store().currentRevision() + 1))
        .isInstanceOf(FutureRevisionException.class);
    store().compact(rev + 1);
    assertThatThrownBy(() -> store().compact(rev)).isInstanceOf(CompactedException.class);
    assertThat(store().compactedRevision()).isEqualTo(rev + 1);
  }
}
