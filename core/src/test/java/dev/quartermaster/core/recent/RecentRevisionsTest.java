package dev.quartermaster.core.recent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecentRevisionsTest {

  @Test
  void everyCallerOfARevisionSharesItsValuesUntilANewerRevisionTakesTheSlot() {
    var recent = new RecentRevisions<String, Integer>(4);
    recent.at(5).put("a", 1);
    recent.at(5).put("b", 2);
    assertThat(recent.at(5)).containsEntry("a", 1).containsEntry("b", 2);
    assertThat(recent.peek(5)).hasValueSatisfying(m -> assertThat(m).hasSize(2));
    assertThat(recent.at(6)).isEmpty(); // another slot
    assertThat(recent.peek(5)).isPresent();

    assertThat(recent.at(9)).isEmpty(); // 9 takes 5's slot
    assertThat(recent.peek(5)).isEmpty();
    var behind = recent.at(5); // far behind: a map of its own, and 9 keeps the slot
    behind.put("a", 3);
    assertThat(recent.peek(9)).isPresent();
    assertThat(recent.at(5)).isEmpty();
  }

  @Test
  void peekNeverTakesASlot() {
    var recent = new RecentRevisions<String, Integer>(2);
    recent.at(1).put("a", 1);
    assertThat(recent.peek(3)).isEmpty();
    assertThat(recent.at(1)).containsEntry("a", 1);
  }

  @Test
  void theSlotCountIsAPowerOfTwo() {
    assertThatThrownBy(() -> new RecentRevisions<String, Integer>(3))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
