package dev.quartermaster.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.queue.Result;
import org.junit.jupiter.api.Test;

/**
 * A write that lost to the store is reconciled again, quietly; anything else is a failure. After a
 * restart the admission controller once created {@code quotaledger/default} before its cache held
 * the one the last run made, and the workers logged a WARN with a stack trace (issue 43, item 20).
 */
class StaleWritesTest {
  @Test
  void aCreateOfWhatExistsIsALostRaceRequeuedNotAFailure() {
    var sync =
        StaleWrites.requeued(
            key -> {
              throw new ApiException(
                  Reason.AlreadyExists, "quotaledger/" + key + " already exists");
            });
    assertThat(sync.apply("default")).isEqualTo(Result.requeue());
  }

  @Test
  void aConflictOrAGoneObjectIsRequeuedAndOtherFailuresPropagate() {
    for (var reason : new Reason[] {Reason.Conflict, Reason.NotFound}) {
      assertThat(
              StaleWrites.requeued(
                      key -> {
                        throw new ApiException(reason, "stale");
                      })
                  .apply("k"))
          .isEqualTo(Result.requeue());
    }
    assertThatThrownBy(
            () ->
                StaleWrites.requeued(
                        key -> {
                          throw new ApiException(Reason.Invalid, "refused");
                        })
                    .apply("k"))
        .isInstanceOf(ApiException.class);
  }
}
