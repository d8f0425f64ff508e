package dev.quartermaster.kubelet.real;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the harness reads a wire record: what counts as a double prepare, in the kubelet's view. */
class DoublePreparesTest {
  private static final Instant T = Instant.parse("2026-11-27T12:00:00Z");

  @Test
  void theReplacementPreparedAfterTheOldClaimsUnprepareIsNotADouble() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(T, "a", "old", List.of("n/gpu-0")),
                new WireEvent.PrepareRefused(T, "b", "new", "gpu-0 is held by claim a"),
                new WireEvent.Unprepared(T, "a"),
                new WireEvent.Prepared(T, "b", "new", List.of("n/gpu-0"))));
    assertThat(read.doubles()).isEmpty();
    assertThat(read.refusedWhileHeld()).isEqualTo(1);
  }

  @Test
  void theReplacementPreparedBeforeTheOldClaimsUnprepareIsADouble() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(T, "a", "old", List.of("n/gpu-0")),
                new WireEvent.Prepared(T, "b", "new", List.of("n/gpu-0")),
                new WireEvent.Unprepared(T, "a")));
    assertThat(read.doubles()).singleElement().asString().contains("n/gpu-0").contains("claim a");
  }

  @Test
  void aRepeatedPrepareOfTheSameClaimAndOtherDevicesAreNotDoubles() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(T, "a", "one", List.of("n/gpu-0")),
                new WireEvent.Prepared(T, "a", "one", List.of("n/gpu-0")),
                new WireEvent.Prepared(T, "b", "two", List.of("n/gpu-1"))));
    assertThat(read.doubles()).isEmpty();
  }
}
