package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.EvictionReason;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.queue.RightfulEviction;
import dev.quartermaster.control.admission.policy.VictimChoice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;

/**
 * Who makes room for a workload that does not fit: pure, and the one home of the rules (the store's
 * guard judges the same ones).
 *
 * <p>A victim is one the controller's policy finds rightful ({@link RightfulEviction#chosen}: of
 * the preemptor's queue and lower priority, or of a queue that borrows a class the preemptor needs
 * while the preemptor stays within its nominal quota), and that did not evict the preemptor to be
 * admitted itself ({@link RightfulEviction#cycles}). Victims are whole workloads (an admission is a
 * whole workload, every gang in it), never already being evicted; taken in the {@link
 * VictimChoice}'s order; then each is given back again, the last taken first, if the preemptor fits
 * without it, so the set is the fewest the order allows.
 */
final class Preemption {
  private Preemption() {}

  /** A chosen victim: its name, entry and why. */
  record Victim(String name, Admitted entry, EvictionReason reason) {}

  /** What wants room: the preemptor's name, uid, queue, priority and demand. */
  record Preemptor(
      String name, String uid, String queue, int priority, Map<String, Integer> demand) {}

  /**
   * The victims whose quota lets {@code p} in, given the cohort's admissions and its {@code quota}
   * with them; empty when no rightful set does. Those in {@code fresh}, admitted by the same
   * decision, are not candidates (the store holds no admission of theirs to evict yet), and {@code
   * stored} is the quota without them: whether a queue borrows is judged on what the store holds,
   * as the guard judges it. Only the preemptor's own queue and the queues that borrow what it needs
   * are looked at ({@code byQueue}: queue → the names admitted through it), so a cohort of
   * thousands of queues costs a preemptor what could make room for it. {@code quota} and {@code
   * stored} are used as scratch and are as they were when this returns. {@code victims}: the order
   * candidates are taken in.
   */
  static Optional<List<Victim>> choose(
      Preemptor p,
      Map<String, Admitted> admitted,
      Map<String, List<String>> byQueue,
      java.util.Set<String> fresh,
      QuotaTally quota,
      QuotaTally stored,
      VictimChoice victims) {
    // Candidates: whoever could become rightful as others go (a reclaim is rightful only once the
    // preemptor would stay within its nominal quota, which may take evicting lower priorities of
    // its own queue first).
    var queues = new java.util.TreeSet<String>();
    queues.add(p.queue());
    if (mayReclaim(p, admitted, byQueue, quota)) {
      p.demand()
          .forEach(
              (c, n) -> {
                if (n > 0) {
                  queues.addAll(stored.borrowers(c));
                }
              });
    }
    var everythingWithin = QuotaTally.of(Map.of(), Map.of());
    var candidates = new ArrayList<Entry<String, Admitted>>();
    for (var q : queues) {
      for (var name : byQueue.getOrDefault(q, List.of())) {
        stored.visited(1);
        var a = admitted.get(name);
        if (a != null
            && !name.equals(p.name())
            && !fresh.contains(name)
            && !a.evicting()
            && !RightfulEviction.cycles(a, p.uid())
            && reason(p, a, stored, everythingWithin).isPresent()) {
          candidates.add(Map.entry(name, a));
        }
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    candidates.sort(victims.order());
    var chosen = new ArrayList<Victim>();
    // quota and stored less the victims chosen so far (each given back before this returns)
    var rest = quota;
    var storedRest = stored;
    var takenFromStored = new ArrayList<Victim>();
    try {
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
        rest.remove(next.entry().queue(), next.entry().usage());
        storedRest.remove(next.entry().queue(), next.entry().usage());
        takenFromStored.add(next);
      }
      // Given back, the last taken first, while the preemptor still fits and every reclaim left
      // stays rightful (the preemptor within its nominal quota).
      for (int i = chosen.size() - 1; i >= 0; i--) {
        var v = chosen.get(i);
        rest.add(v.entry().queue(), v.entry().usage());
        int skip = i;
        boolean reclaims =
            java.util.stream.IntStream.range(0, chosen.size())
                .anyMatch(j -> j != skip && chosen.get(j).reason() == EvictionReason.Reclaimed);
        if (fits(p, rest) && (!reclaims || rest.withinNominal(p.queue(), p.demand()))) {
          chosen.remove(i);
        } else {
          rest.remove(v.entry().queue(), v.entry().usage());
        }
      }
      return Optional.of(List.copyOf(chosen));
    } finally {
      for (var v : chosen) {
        rest.add(v.entry().queue(), v.entry().usage());
      }
      for (var v : takenFromStored) {
        storedRest.add(v.entry().queue(), v.entry().usage());
      }
    }
  }

  /**
   * Whether {@code p} could ever reclaim: only if it would stay within its queue's nominal quota
   * once every lower priority of its own queue went. When not, the borrowers' workloads are not
   * looked at (with thousands of queues borrowing, every blocked preemptor looking at all of them
   * cost the square of the cohort).
   */
  private static boolean mayReclaim(
      Preemptor p,
      Map<String, Admitted> admitted,
      Map<String, List<String>> byQueue,
      QuotaTally quota) {
    var lower = new java.util.HashMap<String, Integer>();
    for (var name : byQueue.getOrDefault(p.queue(), List.of())) {
      var a = admitted.get(name);
      if (a != null && !a.evicting() && a.priority() < p.priority()) {
        a.usage().forEach((c, n) -> lower.merge(c, n, Integer::sum));
      }
    }
    for (var e : p.demand().entrySet()) {
      var c = e.getKey();
      int after = quota.used(p.queue(), c) - lower.getOrDefault(c, 0) + e.getValue();
      if (!quota.withinNominal(p.queue(), Map.of(c, after - quota.used(p.queue(), c)))) {
        return false;
      }
    }
    return true;
  }

  /** Why {@code victim} may make room for {@code p}, by the controller's policy. */
  private static Optional<EvictionReason> reason(
      Preemptor p, Admitted victim, QuotaTally stored, QuotaTally quota) {
    return RightfulEviction.chosen(p.queue(), p.priority(), p.demand(), victim, stored, quota);
  }

  private static boolean fits(Preemptor p, QuotaTally quota) {
    return quota.fits(p.queue(), p.demand());
  }
}
