package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which failures of an agent's start it waits out, and which end it. */
class StartRetryTest {
  @ParameterizedTest
  @CsvSource({
    "Unavailable, true",
    "RequestTimeout, true",
    "Internal, true",
    "NotImplemented, false",
    "Unauthorized, false",
    "Forbidden, false",
    "Invalid, false",
    "NotFound, false"
  })
  void theClustersPassingStateIsWaitedForARefusalIsNot(Reason reason, boolean waits) {
    var answer = new ApiException(reason, "the answer");
    assertThat(StartRetry.passing(answer).isPresent()).isEqualTo(waits);
    // The ledger's cross-check wraps the list it could not make.
    var wrapped = new IOException("NOT STARTING: could not compare …", answer);
    assertThat(StartRetry.passing(wrapped).isPresent()).isEqualTo(waits);
  }

  @ParameterizedTest
  @CsvSource({"1, 2", "8, 16", "16, 30", "30, 30"})
  void theWaitDoublesUpToHalfAMinute(long seconds, long next) {
    assertThat(StartRetry.next(Duration.ofSeconds(seconds))).isEqualTo(Duration.ofSeconds(next));
  }
}
