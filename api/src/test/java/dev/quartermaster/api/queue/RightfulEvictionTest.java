package dev.quartermaster.api.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Whom a preemptor may evict, written out: the promise (Q2, the store's and the simulation's) and
 * the controller's stricter policy, over one cohort: queue a (quota 4 gpu) and b (quota 4 gpu, 2
 * nic), where b borrows 2 gpu and a uses 2.
 */
class RightfulEvictionTest {
  private static final QueueSpec A =
      new QueueSpec(
          Optional.of("c"), Map.of("gpu", 4), Map.of(), Map.of(), 1, QueueOrdering.StrictFIFO);
  private static final QueueSpec B = A.withQuota(Map.of("gpu", 4, "nic", 2));

  private static final Map<String, Admitted> ADMITTED =
      Map.of(
          "a-low", entry("a", 1, Map.of("gpu", 2)),
          "b-gpu", entry("b", 1, Map.of("gpu", 6)),
          "b-nic", entry("b", 1, Map.of("nic", 1)));
  private static final CohortQuota BEFORE = CohortQuota.of(Map.of("a", A, "b", B), ADMITTED);

  /**
   * Each row: the preemptor's queue, priority and demand, the victim, then what the promise and the
   * policy say (- for neither reason).
   */
  private static final String RULE =
      """
      a 5 gpu=2 a-low   Preempted Preempted
      a 1 gpu=2 a-low   -         -
      a 0 gpu=2 a-low   -         -
      a 5 gpu=2 b-gpu   Reclaimed Reclaimed
      a 5 gpu=3 b-gpu   Reclaimed -
      a 5 nic=1 b-gpu   Reclaimed -
      a 5 gpu=2 b-nic   -         -
      b 5 gpu=1 a-low   -         -
      b 5 gpu=1 b-gpu   Preempted Preempted
      """;

  @Test
  void thePromiseAndThePolicyAreAsWrittenOut() {
    var quota = QuotaTally.of(BEFORE);
    for (var line : RULE.strip().split("\n")) {
      var cells = line.trim().split("\\s+");
      var demand = cells[2].split("=");
      var victim = ADMITTED.get(cells[3]);
      int priority = Integer.parseInt(cells[1]);
      var promised = RightfulEviction.promised(cells[0], priority, victim, BEFORE);
      var chosen =
          RightfulEviction.chosen(
              cells[0],
              priority,
              Map.of(demand[0], Integer.parseInt(demand[1])),
              victim,
              quota,
              quota);
      assertThat(promised.map(Enum::name).orElse("-")).as(line + " (promise)").isEqualTo(cells[4]);
      assertThat(chosen.map(Enum::name).orElse("-")).as(line + " (policy)").isEqualTo(cells[5]);
    }
  }

  /** Whatever the policy chooses, the promise allows: the store never refuses the controller. */
  @Test
  void thePolicyIsStricterThanThePromise() {
    var quota = QuotaTally.of(BEFORE);
    for (var queue : List.of("a", "b")) {
      for (int priority = 0; priority < 3; priority++) {
        for (var demand : List.of(Map.of("gpu", 1), Map.of("gpu", 4), Map.of("nic", 1))) {
          for (var victim : ADMITTED.values()) {
            var chosen = RightfulEviction.chosen(queue, priority, demand, victim, quota, quota);
            if (chosen.isPresent()) {
              assertThat(RightfulEviction.promised(queue, priority, victim, BEFORE))
                  .as(queue + " " + priority + " " + demand + " " + victim)
                  .isEqualTo(chosen);
            }
          }
        }
      }
    }
  }

  @Test
  void aWorkloadNeverEvictsWhomItWasAdmittedBy() {
    var admittedByEvicting =
        new Admitted(
            "u", "a", Map.of(), Map.of(), 0, Instant.EPOCH, Optional.empty(), List.of("p-uid"));
    assertThat(RightfulEviction.cycles(admittedByEvicting, "p-uid")).isTrue();
    assertThat(RightfulEviction.cycles(admittedByEvicting, "other")).isFalse();
  }

  private static Admitted entry(String queue, int priority, Map<String, Integer> usage) {
    return new Admitted(
        "uid-" + queue + usage, queue, Map.of("w", 1), usage, priority, Instant.EPOCH);
  }
}
