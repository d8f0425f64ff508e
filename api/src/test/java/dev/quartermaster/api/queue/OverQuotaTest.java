package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A queue's {@code overQuota} policy: decoded by name (Wait by default, an unknown value refused
 * naming the field and the values), and the excess it takes back ({@link QuotaTally#excess}).
 */
class OverQuotaTest {
  private static QueueSpec gpus(int n, Integer borrowingLimit, Integer lendingLimit) {
    return new QueueSpec(
        Optional.of("c"),
        Map.of("gpu", n),
        borrowingLimit == null ? Map.of() : Map.of("gpu", borrowingLimit),
        lendingLimit == null ? Map.of() : Map.of("gpu", lendingLimit),
        1,
        QueueOrdering.BestEffortFIFO,
        OverQuota.Evict);
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

  @Test
  void aQueueWaitsUnlessItSaysEvict() throws Exception {
    var plain =
        (Queue)
            ObjectCodec.fromYaml("kind: Queue\nmetadata: {name: a}\nspec: {quota: {gpu: 2}}\n")
                .getFirst();
    assertThat(plain.spec().overQuota()).isEqualTo(OverQuota.Wait);
    var evict =
        (Queue)
            ObjectCodec.fromYaml(
                    "kind: Queue\nmetadata: {name: a}\nspec: {quota: {gpu: 2}, overQuota: Evict}\n")
                .getFirst();
    assertThat(evict.spec().overQuota()).isEqualTo(OverQuota.Evict);
  }

  @Test
  void anUnknownValueIsRefusedNamingTheFieldAndTheValues() {
    var e =
        catchThrowableOfType(
            ApiException.class,
            () ->
                ObjectCodec.fromYaml(
                    "kind: Queue\nmetadata: {name: a}\nspec: {quota: {gpu: 2}, overQuota: Now}\n"));
    assertThat(e.reason()).isEqualTo(Reason.BadRequest);
    assertThat(e.error().details())
        .containsExactly(new Violation("spec.overQuota", "must be one of [Wait, Evict]"));
  }

  @Test
  void withinWhatItMayHoldThereIsNoExcess() {
    // a borrows 4 of b's 8, which b lends.
    var q =
        CohortQuota.of(Map.of("a", gpus(2, null, null), "b", gpus(8, null, null)), uses("a", 6));
    assertThat(q.excess("a", "gpu")).isZero();
    assertThat(q.excess("b", "gpu")).isZero();
  }

  @Test
  void theCohortsOverdraftIsTheExcessOfTheQueueThatBorrows() {
    // a lowered to 2 while it uses 6; b lends only 1 of its 4.
    var q = CohortQuota.of(Map.of("a", gpus(2, null, null), "b", gpus(4, null, 1)), uses("a", 6));
    assertThat(q.excess("a", "gpu")).isEqualTo(3);
    assertThat(q.minus("a", Map.of("gpu", 3)).excess("a", "gpu")).isZero();
  }

  @Test
  void pastItsOwnBorrowingLimitThePartAboveIt() {
    var q = CohortQuota.of(Map.of("a", gpus(2, 1, null), "b", gpus(8, null, null)), uses("a", 6));
    assertThat(q.excess("a", "gpu")).isEqualTo(3);
  }

  @Test
  void whenOthersBorrowAllTheCohortLendsItMayBorrowNothing() {
    // b borrows 3 and the cohort lends 2 (c's): a may borrow none of it, so all 2 it borrows go.
    var q =
        CohortQuota.of(
            Map.of("a", gpus(2, null, null), "b", gpus(1, null, null), "c", gpus(2, null, null)),
            uses("a", 4, "b", 4));
    assertThat(q.excess("a", "gpu")).isEqualTo(2);
    assertThat(q.excess("b", "gpu")).isEqualTo(3);
  }

  @Test
  void aQueueWithinItsNominalQuotaHasNoExcessWhateverTheCohort() {
    var q =
        CohortQuota.of(
            Map.of("a", gpus(2, null, null), "b", gpus(1, null, null)), uses("a", 2, "b", 3));
    assertThat(q.excess("a", "gpu")).isZero();
    assertThat(q.excess("b", "gpu")).isEqualTo(2);
  }
}
