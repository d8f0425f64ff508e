package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.CohortQuota;
import dev.quartermaster.api.queue.EvictionReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;

/**
 * Who makes room for a workload that does not fit: pure, and the one home of the rules (the store's
 * guard judges the same ones).
 *
 * <p>A victim is rightful when it is
 *
 * <ul>
 *   <li>of the preemptor's queue and of strictly lower priority ({@link EvictionReason#Preempted});
 *       or
 *   <li>of another queue of the cohort that borrows a class the preemptor needs, while the
 *       preemptor, admitted, stays within its own queue's nominal quota ({@link
 *       EvictionReason#Reclaimed}): a queue takes back what it lent, never more;
 * </ul>
 *
 * and it did not evict the preemptor to be admitted itself ({@link Admitted#preempted}): a
 * preempted workload never evicts its preemptor back while that one stays admitted. Victims are
 * whole workloads (an admission is a whole workload, every gang in it), never already being
 * evicted; taken lowest priority first, then the most recently admitted (the least work lost), then
 * by name; then each is given back again, the last taken first, if the preemptor fits without it,
 * so the set is the fewest the order allows.
 */
final class Preemption {
  private Preemption() {}

  /** A chosen victim: its name, entry and why. */
  record Victim(String name, Admitted entry, EvictionReason reason) {}

  /** What wants room: the preemptor's name, uid, queue, priority and demand. */
  record Preemptor(
      String name, String uid, String queue, int priority, Map<String, Integer> demand) {}

  private static final Comparator<Entry<String, Admitted>> ORDER =
      Comparator.comparingInt((Entry<String, Admitted> e) -> e.getValue().priority())
          .thenComparing(e -> e.getValue().at(), Comparator.<Instant>reverseOrder())
          .thenComparing(Entry::getKey);

  /**
   * The victims whose quota lets {@code p} in, given the cohort's admissions and its {@code quota}
   * with them; empty when no rightful set does. Those in {@code fresh}, admitted by the same
   * decision, are not candidates (the store holds no admission of theirs to evict yet), and {@code
   * stored} is the quota without them: whether a queue borrows is judged on what the store holds,
   * as the guard judges it.
   */
  static Optional<List<Victim>> choose(
      Preemptor p,
      Map<String, Admitted> admitted,
      java.util.Set<String> fresh,
      CohortQuota quota,
      CohortQuota stored) {
    var storedNow = stored;
    // Candidates: whoever could become rightful as others go (a reclaim is rightful only once the
    // preemptor would stay within its nominal quota, which may take evicting lower priorities of
    // its own queue first).
    var candidates =
        new ArrayList<>(
            admitted.entrySet().stream()
                .filter(e -> !e.getKey().equals(p.name()) && !fresh.contains(e.getKey()))
                .filter(e -> !e.getValue().evicting())
                .filter(e -> !e.getValue().preempted().contains(p.uid()))
                .filter(e -> reason(p, e.getValue(), storedNow, EVERYTHING_WITHIN).isPresent())
                .sorted(ORDER)
                .toList());
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    var chosen = new ArrayList<Victim>();
    var rest = quota;
    var storedRest = stored;
    // The lowest candidate rightful now, again and again: one that was not may be after another
    // goes.
    while (!fits(p, rest)) {
      Victim next = null;
      for (var c : candidates) {
        var why = reason(p, c.getValue(), storedRest, rest);
        if (why.isPresent()) {
          next = new Victim(c.getKey(), c.getValue(), why.get());
          candidates.remove(c);
          break;
        }
      }
      if (next == null) {
        return Optional.empty();
      }
      chosen.add(next);
      rest = rest.minus(next.entry().queue(), next.entry().usage());
      storedRest = storedRest.minus(next.entry().queue(), next.entry().usage());
    }
    // Given back, the last taken first, while the preemptor still fits and every reclaim left
    // stays rightful (the preemptor within its nominal quota).
    for (int i = chosen.size() - 1; i >= 0; i--) {
      var v = chosen.get(i);
      var back = rest.plus(v.entry().queue(), v.entry().usage());
      int skip = i;
      boolean reclaims =
          java.util.stream.IntStream.range(0, chosen.size())
              .anyMatch(j -> j != skip && chosen.get(j).reason() == EvictionReason.Reclaimed);
      if (fits(p, back) && (!reclaims || back.withinNominal(p.queue(), p.demand()))) {
        rest = back;
        chosen.remove(i);
      }
    }
    return Optional.of(List.copyOf(chosen));
  }

  /** A quota under which every preemptor is within its nominal quota: for the first sift only. */
  private static final CohortQuota EVERYTHING_WITHIN = new CohortQuota(Map.of(), Map.of());

  /**
   * Why {@code victim} may make room for {@code p}, or empty if it may not: whether its queue
   * borrows is read in {@code stored} (what the store holds), whether {@code p} stays within its
   * nominal quota in {@code quota} (everything this decision admits too).
   */
  static Optional<EvictionReason> reason(
      Preemptor p, Admitted victim, CohortQuota stored, CohortQuota quota) {
    if (victim.queue().equals(p.queue())) {
      return victim.priority() < p.priority()
          ? Optional.of(EvictionReason.Preempted)
          : Optional.empty();
    }
    boolean borrowsWhatIsWanted =
        p.demand().entrySet().stream()
            .anyMatch(
                e ->
                    e.getValue() > 0
                        && victim.usage().getOrDefault(e.getKey(), 0) > 0
                        && stored.borrowed(victim.queue(), e.getKey()) > 0);
    return borrowsWhatIsWanted && quota.withinNominal(p.queue(), p.demand())
        ? Optional.of(EvictionReason.Reclaimed)
        : Optional.empty();
  }

  /** Judged in the classes it asks for: a cohort may be over quota of others (a lowered quota). */
  private static boolean fits(Preemptor p, CohortQuota quota) {
    return quota.plus(p.queue(), p.demand()).breach(p.demand().keySet()).isEmpty();
  }
}
