package dev.quartermaster.store.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.store.compaction.HistoryPlan.Limits;
import dev.quartermaster.store.compaction.HistoryPlan.Reason;
import dev.quartermaster.store.compaction.HistorySizes.Freed;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryPlanTest {
  /** Revisions 100 down to 91 each free 10 bytes. */
  static final List<Freed> TEN_BY_TEN =
      java.util.stream.LongStream.rangeClosed(91, 100)
          .map(r -> 191 - r)
          .mapToObj(r -> new Freed(r, 10))
          .toList();

  @Test
  void theByteBoundWinsWhenItAsksForMore() {
    // 35 bytes fit: revisions 100..98 (30 bytes) stay; 97 would make 40, so compact to 97.
    var plan = HistoryPlan.decide(100, 0, new Limits(50, 35), TEN_BY_TEN);
    assertThat(plan).isEqualTo(new HistoryPlan(97, Reason.BYTES, 30));
    assertThat(plan.compactsBeyond(0)).isTrue();
  }

  @Test
  void theRevisionBoundWinsWhenItAsksForMore() {
    var plan = HistoryPlan.decide(100, 0, new Limits(5, 1000), TEN_BY_TEN);
    assertThat(plan).isEqualTo(new HistoryPlan(95, Reason.REVISIONS, 50));
  }

  @Test
  void aBoundExactlyMetKeepsEverything() {
    var plan = HistoryPlan.decide(100, 90, new Limits(50, 100), TEN_BY_TEN);
    assertThat(plan.compactsBeyond(90)).isFalse();
    assertThat(plan.keptBytes()).isEqualTo(100);
  }

  @Test
  void oneRevisionLargerThanTheBoundIsCompactedToo() {
    var plan = HistoryPlan.decide(100, 0, new Limits(50, 5), TEN_BY_TEN);
    assertThat(plan).isEqualTo(new HistoryPlan(100, Reason.BYTES, 0));
  }

  @Test
  void alreadyCompactedFarEnoughIsNothingToDo() {
    var plan = HistoryPlan.decide(100, 98, new Limits(50, 25), TEN_BY_TEN);
    // The bound asks for 98, which is done: 20 bytes above it remain.
    assertThat(plan.compactsBeyond(98)).isFalse();
    assertThat(plan.keptBytes()).isEqualTo(20);
  }

  @Test
  void limitsRefuseZero() {
    assertThatThrownBy(() -> new Limits(0, 1)).hasMessageContaining("1 revision");
    assertThatThrownBy(() -> new Limits(1, 0)).hasMessageContaining("1 byte");
  }
}
