package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Batches of 1, 2, 4, … per group while each batch is created whole and work is left; back to 1
 * otherwise.
 */
class SlowStartTest {

  @Test
  void aBatchCreatedWholeWithWorkLeftDoubles() {
    var s = new SlowStart();
    assertThat(s.batch("w/a")).isEqualTo(1);
    s.done("w/a", 1, 10);
    assertThat(s.batch("w/a")).isEqualTo(2);
    s.done("w/a", 2, 8);
    assertThat(s.batch("w/a")).isEqualTo(4);
  }

  @Test
  void aShortBatchOrNothingLeftStartsOver() {
    var s = new SlowStart();
    s.done("w/a", 1, 10);
    s.done("w/a", 1, 9); // one of two failed: the template may be bad
    assertThat(s.batch("w/a")).isEqualTo(1);
    s.done("w/a", 1, 3);
    s.done("w/a", 2, 0); // done
    assertThat(s.batch("w/a")).isEqualTo(1);
  }

  @Test
  void groupsAreCountedApartAndForgottenByWorkload() {
    var s = new SlowStart();
    s.done("uid-1/a", 1, 5);
    s.done("uid-2/a", 1, 5);
    s.forgetAll("uid-1/");
    assertThat(s.batch("uid-1/a")).isEqualTo(1);
    assertThat(s.batch("uid-2/a")).isEqualTo(2);
  }
}
