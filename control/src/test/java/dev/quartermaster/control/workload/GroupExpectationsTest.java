package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The gate of a group: shut while a batch's creates are in flight (their revisions not known yet),
 * then until the informer shows the highest revision they got. A gate that opened on the informer's
 * revision alone would let the next pass decide on a view that lacks the batch: duplicate creates.
 */
class GroupExpectationsTest {
  private final GroupExpectations expectations = new GroupExpectations(Duration.ofSeconds(30));

  @Test
  void theGateStaysShutWhileAnyCreateOfTheBatchIsInFlight() {
    expectations.wrote("g", "t-0", "create", 10, 0);
    expectations.expectCreates("g", 3, 0);
    // The informer has passed every revision written so far, but two creates are still running.
    expectations.wrote("g", "t-1", "create", 12, 0);
    assertThat(expectations.gate("g", 99, 0)).isInstanceOf(GroupExpectations.Gate.Waiting.class);
    expectations.createEnded("g"); // one refused: no write
    assertThat(expectations.inFlight("g")).isEqualTo(1);
    assertThat(expectations.gate("g", 99, 0)).isInstanceOf(GroupExpectations.Gate.Waiting.class);
    expectations.wrote("g", "t-2", "create", 15, 0);
    assertThat(expectations.inFlight("g")).isZero();
    // Now only the revision matters: the cache must show 15.
    assertThat(expectations.gate("g", 14, 0)).isInstanceOf(GroupExpectations.Gate.Waiting.class);
    assertThat(expectations.gate("g", 15, 0)).isInstanceOf(GroupExpectations.Gate.Open.class);
  }

  @Test
  void aBatchThatNeverEndsTimesOutToALiveRead() {
    expectations.expectCreates("g", 2, 0);
    assertThat(expectations.gate("g", 0, Duration.ofSeconds(31).toNanos()))
        .isInstanceOf(GroupExpectations.Gate.TimedOut.class);
  }

  @Test
  void deletesDoNotCountAgainstCreatesInFlight() {
    expectations.expectCreates("g", 1, 0);
    expectations.wrote("g", "t-9", "delete", 20, 0);
    assertThat(expectations.inFlight("g")).isEqualTo(1);
  }
}
