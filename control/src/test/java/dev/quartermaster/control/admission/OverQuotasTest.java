package dev.quartermaster.control.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.Eviction;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.control.admission.policy.LeastWorkLost;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The choice of victims of a queue set to {@code overQuota: Evict} that uses more than it may hold:
 * lowest priority first, then the newest admission, and no more than needed.
 */
class OverQuotasTest {
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  private static QueueSpec queue(int gpus, Integer lendingLimit, OverQuota policy) {
    return new QueueSpec(
        Optional.of("c"),
        Map.of("gpu", gpus),
        Map.of(),
        lendingLimit == null ? Map.of() : Map.of("gpu", lendingLimit),
        1,
        QueueOrdering.BestEffortFIFO,
        policy);
  }

  /** Team a lowered to {@code gpus}; team b lends nothing. */
  private static Map<String, QueueSpec> lowered(int gpus, OverQuota policy) {
    return Map.of("a", queue(gpus, null, policy), "b", queue(4, 0, OverQuota.Wait));
  }

  private static Admitted entry(String queue, int gpus, int priority, int second) {
    return new Admitted(
        "uid-" + queue + gpus + priority + second,
        queue,
        Map.of("w", gpus),
        Map.of("gpu", gpus),
        priority,
        T0.plusSeconds(second));
  }

  private static java.util.List<String> names(java.util.List<OverQuotas.Victim> victims) {
    return victims.stream().map(OverQuotas.Victim::name).toList();
  }

  @Test
  void aQueueThatWaitsEvictsNobody() {
    var entries = Map.of("j1", entry("a", 1, 0, 1), "j2", entry("a", 1, 0, 2));
    assertThat(OverQuotas.choose(lowered(0, OverQuota.Wait), entries, new LeastWorkLost()))
        .isEmpty();
  }

  @Test
  void theNewestGoFirstJustEnoughToComeBackWithin() {
    var entries = new HashMap<String, Admitted>();
    for (int i = 1; i <= 4; i++) {
      entries.put("j" + i, entry("a", 1, 0, i));
    }
    var victims = OverQuotas.choose(lowered(2, OverQuota.Evict), entries, new LeastWorkLost());
    assertThat(names(victims)).containsExactlyInAnyOrder("j4", "j3");
    assertThat(victims).allMatch(v -> v.why().equals("gpu: 4 used, quota 2, may hold 2"));
  }

  @Test
  void theLowestPriorityGoesFirstWhateverItsAge() {
    var entries =
        Map.of(
            "old-low",
            entry("a", 1, -5, 1),
            "new-high",
            entry("a", 1, 10, 9),
            "mid",
            entry("a", 1, 0, 5));
    assertThat(names(OverQuotas.choose(lowered(2, OverQuota.Evict), entries, new LeastWorkLost())))
        .containsExactly("old-low");
  }

  @Test
  void aLargeVictimThatSufficesSparesTheSmallOnesTakenBeforeIt() {
    // Over by 3: the newest (1 GPU) is taken first, then the 4-GPU one, which alone is enough.
    var entries =
        Map.of(
            "big", entry("a", 4, 0, 1), "small", entry("a", 1, 0, 2), "keep", entry("a", 1, 0, 0));
    assertThat(names(OverQuotas.choose(lowered(3, OverQuota.Evict), entries, new LeastWorkLost())))
        .containsExactly("big");
  }

  @Test
  void whatTheCohortLendsMayStillBeHeld() {
    // a lowered to 1 with 4 used, b lends 2 of its 4 unused: a may hold 3.
    var specs = Map.of("a", queue(1, null, OverQuota.Evict), "b", queue(4, 2, OverQuota.Wait));
    var entries = new HashMap<String, Admitted>();
    for (int i = 1; i <= 4; i++) {
      entries.put("j" + i, entry("a", 1, 0, i));
    }
    assertThat(names(OverQuotas.choose(specs, entries, new LeastWorkLost()))).containsExactly("j4");
  }

  @Test
  void evictionsUnderWayCountAsGone() {
    var entries = new HashMap<String, Admitted>();
    for (int i = 1; i <= 4; i++) {
      entries.put("j" + i, entry("a", 1, 0, i));
    }
    entries.put(
        "j4", entries.get("j4").evictedBy(new Eviction("", "", EvictionReason.OverQuota, T0)));
    assertThat(names(OverQuotas.choose(lowered(2, OverQuota.Evict), entries, new LeastWorkLost())))
        .containsExactly("j3");
    entries.put(
        "j3", entries.get("j3").evictedBy(new Eviction("", "", EvictionReason.OverQuota, T0)));
    assertThat(OverQuotas.choose(lowered(2, OverQuota.Evict), entries, new LeastWorkLost()))
        .isEmpty();
  }

  @Test
  void anotherQueuesWorkloadsAreNeverTaken() {
    var entries = Map.of("a1", entry("a", 3, 0, 1), "b1", entry("b", 1, -100, 9));
    assertThat(names(OverQuotas.choose(lowered(2, OverQuota.Evict), entries, new LeastWorkLost())))
        .containsExactly("a1");
  }

  @Test
  void theEvictedEntryNamesNoPreemptor() {
    var entries = Map.of("j1", entry("a", 2, 0, 1));
    var victims = OverQuotas.choose(lowered(1, OverQuota.Evict), entries, new LeastWorkLost());
    var e = OverQuotas.evicted(entries, victims, T0).get("j1").eviction().orElseThrow();
    assertThat(e.reason()).isEqualTo(EvictionReason.OverQuota);
    assertThat(e.by()).isEmpty();
    assertThat(e.reason().hasPreemptor()).isFalse();
  }
}
