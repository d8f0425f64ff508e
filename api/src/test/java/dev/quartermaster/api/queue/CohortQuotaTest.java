package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Q1's arithmetic, case by case: what a cohort borrows is at most what it lends. */
class CohortQuotaTest {
  private static QueueSpec quota(int gpus) {
    return new QueueSpec(
        Optional.of("c"), Map.of("gpu", gpus), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);
  }

  private static QueueSpec quota(int gpus, Integer borrowingLimit, Integer lendingLimit) {
    return new QueueSpec(
        Optional.of("c"),
        Map.of("gpu", gpus),
        borrowingLimit == null ? Map.of() : Map.of("gpu", borrowingLimit),
        lendingLimit == null ? Map.of() : Map.of("gpu", lendingLimit),
        1,
        QueueOrdering.StrictFIFO);
  }

  private static Map<String, Admitted> uses(Object... queueAndGpus) {
    var out = new LinkedHashMap<String, Admitted>();
    for (int i = 0; i < queueAndGpus.length; i += 2) {
      out.put(
          "w" + i,
          new Admitted(
              "u" + i,
              (String) queueAndGpus[i],
              Map.of("g", 1),
              Map.of("gpu", (Integer) queueAndGpus[i + 1]),
              0,
              Instant.EPOCH));
    }
    return out;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("within nominal", Map.of("a", quota(8)), uses("a", 8), Optional.empty()),
        Arguments.of(
            "over nominal, nobody to lend",
            Map.of("a", quota(8)),
            uses("a", 9),
            Optional.of("gpu: the cohort's queues borrow 1, and lend only 0")),
        Arguments.of(
            "borrows what b does not use",
            Map.of("a", quota(8), "b", quota(8)),
            uses("a", 12, "b", 4),
            Optional.empty()),
        Arguments.of(
            "b takes back its nominal while a still borrows: over",
            Map.of("a", quota(8), "b", quota(8)),
            uses("a", 12, "b", 8),
            Optional.of("gpu: the cohort's queues borrow 4, and lend only 0")),
        Arguments.of(
            "borrowing limit",
            Map.of("a", quota(8, 2, null), "b", quota(8)),
            uses("a", 11),
            Optional.of("queue a: gpu: 11 used, nominal 8, borrowing limit 2")),
        Arguments.of(
            "lending limit",
            Map.of("a", quota(8), "b", quota(8, null, 3)),
            uses("a", 12),
            Optional.of("gpu: the cohort's queues borrow 4, and lend only 3")),
        Arguments.of(
            "a class the quota does not name is not limited",
            Map.of("a", quota(8)),
            Map.of("w", new Admitted("u", "a", Map.of(), Map.of("channel", 500), 0, Instant.EPOCH)),
            Optional.empty()),
        Arguments.of(
            "an entry of a queue the cohort does not have",
            Map.of("a", quota(8)),
            uses("z", 1),
            Optional.of("queue z is not of this cohort")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void breach(
      String name,
      Map<String, QueueSpec> queues,
      Map<String, Admitted> admitted,
      Optional<String> expected) {
    assertThat(CohortQuota.of(queues, admitted).breach()).isEqualTo(expected);
  }

  /** The admission decision's running tally says what CohortQuota says, case by case. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theTallyJudgesAsCohortQuotaDoes(
      String name,
      Map<String, QueueSpec> queues,
      Map<String, Admitted> admitted,
      Optional<String> expected) {
    var tally = QuotaTally.of(queues, admitted);
    assertThat(tally.breach()).isEqualTo(expected);
    // Built one entry at a time and taken apart again, it ends where it began.
    var empty = QuotaTally.of(queues, Map.of());
    admitted.values().forEach(a -> empty.add(a.queue(), a.usage()));
    assertThat(empty.breach()).isEqualTo(expected);
    admitted.values().forEach(a -> empty.remove(a.queue(), a.usage()));
    assertThat(empty.breach()).isEmpty();
    var quota = CohortQuota.of(queues, admitted);
    for (var q : queues.keySet()) {
      for (var c : java.util.List.of("gpu", "channel")) {
        assertThat(tally.borrowed(q, c)).isEqualTo(quota.borrowed(q, c));
        assertThat(tally.lent(c).getOrDefault(q, 0)).isEqualTo(quota.lent(q, c));
      }
    }
  }

  @Test
  void roomCountsOwnQuotaAndWhatOthersLend() {
    var q =
        CohortQuota.of(
            Map.of("a", quota(8, 3, null), "b", quota(8), "c", quota(4, null, 1)),
            uses("a", 6, "b", 2));
    // a: 2 of its own, and of the 6 + 1 others lend it may borrow 3 (its limit).
    assertThat(q.room("a", "gpu")).isEqualTo(OptionalInt.of(5));
    // b: 6 of its own, and a lends the 2 it does not use, c 1 (its lending limit).
    assertThat(q.room("b", "gpu")).isEqualTo(OptionalInt.of(9));
    assertThat(q.room("a", "channel")).isEqualTo(OptionalInt.empty());
    assertThat(q.lent("b", "gpu")).isZero();
  }

  /** Room is exactly what {@link CohortQuota#plus} admits with no breach, whoever borrows. */
  @Test
  void roomIsWhatPlusAdmitsWithoutABreach() {
    var specs =
        Map.of(
            "a", quota(8, 3, null), "b", quota(8), "c", quota(4, null, 1), "d", quota(2, null, 0));
    for (int a = 0; a <= 14; a++) {
      for (int b = 0; b <= 12; b++) {
        var q = CohortQuota.of(specs, uses("a", a, "b", b, "d", 1));
        if (q.breach().isPresent()) {
          continue;
        }
        for (var queue : specs.keySet()) {
          int room = q.room(queue, "gpu").getAsInt();
          assertThat(q.plus(queue, Map.of("gpu", room)).breach())
              .as("a=%d b=%d: %s fits its room %d", a, b, queue, room)
              .isEmpty();
          assertThat(q.plus(queue, Map.of("gpu", room + 1)).breach())
              .as("a=%d b=%d: %s does not fit %d", a, b, queue, room + 1)
              .isPresent();
        }
      }
    }
  }

  @Test
  void aClassOverQuotaHasNoRoomAndLeavesTheOthersAlone() {
    var specs =
        Map.of(
            "a",
            new QueueSpec(
                Optional.of("c"),
                Map.of("gpu", 2, "channel", 4),
                Map.of(),
                Map.of(),
                1,
                QueueOrdering.StrictFIFO),
            "b",
            quota(2));
    var q =
        CohortQuota.of(
            specs,
            Map.of(
                "w",
                new Admitted(
                    "u", "a", Map.of(), Map.of("gpu", 6, "channel", 1), 0, Instant.EPOCH)));
    assertThat(q.breach(java.util.List.of("gpu")))
        .hasValue("gpu: the cohort's queues borrow 4, and lend only 2");
    assertThat(q.breach(java.util.List.of("channel"))).isEmpty();
    assertThat(q.room("b", "gpu")).isEqualTo(OptionalInt.of(0));
    assertThat(q.room("a", "channel")).isEqualTo(OptionalInt.of(3));
  }

  @Test
  void lentIsLaidOnLendersInNameOrder() {
    var q = CohortQuota.of(Map.of("a", quota(8), "b", quota(4), "c", quota(4)), uses("a", 14));
    assertThat(q.borrowed("a", "gpu")).isEqualTo(6);
    assertThat(q.lent("b", "gpu")).isEqualTo(4);
    assertThat(q.lent("c", "gpu")).isEqualTo(2);
  }
}
