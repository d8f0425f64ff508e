package dev.quartermaster.kubelet.real;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the harness reads a wire record: what counts as a double prepare, in the kubelet's view,
 * judged by when each request arrived and each answer was sent.
 */
class DoublePreparesTest {
  private static final Instant T = Instant.parse("2026-11-27T12:00:00Z");

  /**
   * A call that arrived as the {@code arrival}-th step and was answered as the {@code answer}-th.
   */
  private static CallTimes call(long arrival, long answer) {
    return new CallTimes(arrival, T.plusMillis(arrival), answer, T.plusMillis(answer));
  }

  /** Every call arriving at the same instant {@code T}, as at 01:14:34.433. */
  private static CallTimes sameInstant(long arrival, long answer) {
    return new CallTimes(arrival, T, answer, T);
  }

  @Test
  void theReplacementPreparedAfterTheOldClaimsUnprepareIsNotADouble() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(call(1, 2), "a", "old", List.of("n/gpu-0")),
                new WireEvent.PrepareRefused(call(3, 4), "b", "new", "gpu-0 is held by claim a"),
                new WireEvent.Unprepared(call(5, 6), "a"),
                new WireEvent.Prepared(call(7, 8), "b", "new", List.of("n/gpu-0"))));
    assertThat(read.doubles()).isEmpty();
    assertThat(read.refusedWhileHeld()).isEqualTo(1);
  }

  @Test
  void theReplacementPreparedBeforeTheOldClaimsUnprepareArrivedIsADoubleWithItsRecord() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(call(1, 2), "a", "old", List.of("n/gpu-0")),
                new WireEvent.Prepared(call(3, 4), "b", "new", List.of("n/gpu-0")),
                new WireEvent.Unprepared(call(5, 6), "a")));
    assertThat(read.doubles()).singleElement().asString().contains("n/gpu-0").contains("claim a");
    assertThat(read.flags().getFirst().record())
        .hasSize(3)
        .anySatisfy(line -> assertThat(line).startsWith("> #3 ").contains("Prepared new (b)"))
        .anySatisfy(line -> assertThat(line).startsWith("  #5 ").contains("Unprepared (a)"));
  }

  @Test
  void aRepeatedPrepareOfTheSameClaimAndOtherDevicesAreNotDoubles() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(call(1, 2), "a", "one", List.of("n/gpu-0")),
                new WireEvent.Prepared(call(3, 4), "a", "one", List.of("n/gpu-0")),
                new WireEvent.Prepared(call(5, 6), "b", "two", List.of("n/gpu-1"))));
    assertThat(read.doubles()).isEmpty();
  }

  /**
   * Item 5's interleaving: after the SIGKILL the kubelet sent the old claim's unprepare and the new
   * claim's prepare at the same instant. Whichever answer the proxy sends first, the unprepare had
   * arrived before the prepare was answered, so the plugin may have released the GPU first (and our
   * plugin must have: its ledger answers Prepared for b only once a is released). Not a double
   * either way. The judge before this one ordered by when it recorded the answers, and flagged the
   * second order: that is what a proxy recording the prepare's answer before the unprepare's looks
   * like, with no double in the plugin.
   */
  @Test
  void anUnprepareAndAPrepareArrivingTogetherAreNotADoubleInEitherAnswerOrder() {
    var preparedA = new WireEvent.Prepared(sameInstant(1, 2), "a", "old", List.of("n/gpu-0"));
    // unprepare of a arrives (#3), prepare of b arrives (#4), at the same instant
    var unprepareFirst =
        List.<WireEvent>of(
            preparedA,
            new WireEvent.Unprepared(sameInstant(3, 5), "a"),
            new WireEvent.Prepared(sameInstant(4, 6), "b", "new", List.of("n/gpu-0")));
    var prepareFirst =
        List.<WireEvent>of(
            preparedA,
            new WireEvent.Prepared(sameInstant(4, 5), "b", "new", List.of("n/gpu-0")),
            new WireEvent.Unprepared(sameInstant(3, 6), "a"));

    assertThat(DoublePrepares.of(unprepareFirst).doubles()).isEmpty();
    assertThat(DoublePrepares.of(prepareFirst).doubles()).isEmpty();
    // The old judge, by answer order alone, saw a double in the second.
    assertThat(byAnswerOrder(unprepareFirst)).isEmpty();
    assertThat(byAnswerOrder(prepareFirst)).containsExactly("b");
  }

  /**
   * A prepare answered before the unprepare even arrived is a double, at the same instant or not;
   * so is one answered while the old claim's unprepare had failed (the plugin was killed during it)
   * and before the kubelet's retry arrived: the record shows the failed call.
   */
  @Test
  void aPrepareAnsweredBeforeTheUnprepareArrivedOrAfterItFailedIsADouble() {
    var before =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(sameInstant(1, 2), "a", "old", List.of("n/gpu-0")),
                new WireEvent.Prepared(sameInstant(3, 4), "b", "new", List.of("n/gpu-0")),
                new WireEvent.Unprepared(sameInstant(5, 6), "a")));
    assertThat(before.doubles()).hasSize(1);

    var afterFailure =
        DoublePrepares.of(
            List.of(
                new WireEvent.Prepared(call(1, 2), "a", "old", List.of("n/gpu-0")),
                new WireEvent.CallFailed(call(3, 5), "a", "NodeUnprepareResources", "UNAVAILABLE"),
                new WireEvent.Prepared(call(4, 6), "b", "new", List.of("n/gpu-0")),
                new WireEvent.Unprepared(call(7, 8), "a")));
    assertThat(afterFailure.doubles()).hasSize(1);
    assertThat(afterFailure.flags().getFirst().record())
        .anySatisfy(line -> assertThat(line).contains("NodeUnprepareResources FAILED for (a)"));
  }

  /** A prepare of a claim still in the plugin when its unprepare arrived holds nothing after. */
  @Test
  void aPrepareOvertakenByItsOwnUnprepareHoldsNothing() {
    var read =
        DoublePrepares.of(
            List.of(
                new WireEvent.Unprepared(call(2, 4), "a"),
                new WireEvent.Prepared(call(1, 3), "a", "old", List.of("n/gpu-0")),
                new WireEvent.Prepared(call(5, 6), "b", "new", List.of("n/gpu-0"))));
    assertThat(read.doubles()).isEmpty();
  }

  /** The judge before this one: answers in the order they were recorded, unprepares at answer. */
  private static List<String> byAnswerOrder(List<WireEvent> events) {
    var sorted = new ArrayList<>(events);
    sorted.sort(java.util.Comparator.comparingLong(e -> e.times().answerSeq()));
    var holder = new java.util.HashMap<String, String>();
    var doubles = new ArrayList<String>();
    for (var e : sorted) {
      switch (e) {
        case WireEvent.Prepared p -> {
          for (var d : p.devices()) {
            var other = holder.put(d, p.uid());
            if (other != null && !other.equals(p.uid())) {
              doubles.add(p.uid());
            }
          }
        }
        case WireEvent.Unprepared u -> holder.values().removeIf(u.uid()::equals);
        default -> {}
      }
    }
    return doubles;
  }
}
