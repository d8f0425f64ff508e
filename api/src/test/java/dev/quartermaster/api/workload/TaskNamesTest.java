package dev.quartermaster.api.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Names say which slot they fill, so a create from a stale view collides instead of adding a
 * worker.
 */
class TaskNamesTest {

  @Test
  void aTaskNameRoundTripsToItsOrdinal() {
    for (int ordinal : new int[] {0, 1, 9, 10, 123_456_789}) {
      assertThat(TaskNames.ordinal("train", "workers", TaskNames.task("train", "workers", ordinal)))
          .hasValue(ordinal);
    }
  }

  @Test
  void onlyTheCanonicalSpellingOfAnOrdinalIsOne() {
    for (var name :
        new String[] {
          "train-workers-",
          "train-workers-01",
          "train-workers-1a",
          "train-workers--1",
          "train-workers-1234567890",
          "train-head-0",
          "other-workers-0",
          "train-workers"
        }) {
      assertThat(TaskNames.ordinal("train", "workers", name))
          .as(name)
          .isEqualTo(OptionalInt.empty());
    }
  }

  @Test
  void claimsAndVolumesAreNamedAfterTheSlot() {
    assertThat(TaskNames.claim("train-workers-0", "gpu")).isEqualTo("train-workers-0-gpu");
    assertThat(TaskNames.channelClaim("train-workers-0")).isEqualTo("train-workers-0-channels");
    assertThat(TaskNames.volume("train-workers-0", "scratch")).isEqualTo("train-workers-0-scratch");
  }
}
