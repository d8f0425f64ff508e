package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.AdmissionTransitions;
import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.OverQuota;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.control.admission.policy.VictimChoice;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.TreeMap;

/**
 * A queue set to {@link OverQuota#Evict} takes back what it uses over what it may hold ({@link
 * QuotaTally#excess}: its quota lowered under what it admitted): pure, the one home of the choice.
 * Only admissions not already being evicted count (those stopping are on their way out, so a second
 * look evicts no more for the same excess). Victims are whole workloads of the queue, taken in the
 * {@link VictimChoice}'s order while any Evict queue of the cohort is over; then each is given
 * back, the last taken first, if every Evict queue stays within without it, so no victim is more
 * than needed.
 */
final class OverQuotas {
  private OverQuotas() {}

  /** A victim: its name, its entry as it stood, and its queue's figures before the evictions. */
  record Victim(String name, Admitted entry, String why) {}

  /**
   * The entries of {@code entries} (a cohort's) to evict now, for the queues of {@code queues} set
   * to {@link OverQuota#Evict}, taken in {@code victims}' order; empty when every such queue is
   * within what it may hold.
   */
  static List<Victim> choose(
      Map<String, QueueSpec> queues, Map<String, Admitted> entries, VictimChoice victims) {
    var evict = new TreeMap<String, QueueSpec>();
    queues.forEach(
        (q, spec) -> {
          if (spec.overQuota() == OverQuota.Evict) {
            evict.put(q, spec);
          }
        });
    if (evict.isEmpty()) {
      return List.of();
    }
    var kept = new TreeMap<String, Admitted>();
    entries.forEach(
        (n, a) -> {
          if (!a.evicting()) {
            kept.put(n, a);
          }
        });
    var tally = QuotaTally.of(queues, kept);
    var chosen = new ArrayList<Victim>();
    for (var q : evict.keySet()) {
      if (!over(q, evict.get(q), tally)) {
        continue;
      }
      var why = why(q, evict.get(q), tally); // the queue's figures before any of it goes
      var candidates =
          kept.entrySet().stream()
              .filter(e -> e.getValue().queue().equals(q))
              .sorted(victims.order());
      for (var c : (Iterable<Entry<String, Admitted>>) candidates::iterator) {
        var a = c.getValue();
        if (!over(q, evict.get(q), tally)) {
          break;
        }
        if (a.usage().keySet().stream().noneMatch(k -> tally.excess(q, k) > 0)) {
          continue; // it uses nothing of what the queue is over
        }
        chosen.add(new Victim(c.getKey(), a, why));
        tally.remove(q, a.usage());
      }
    }
    for (int i = chosen.size() - 1; i >= 0; i--) {
      var v = chosen.get(i);
      tally.add(v.entry().queue(), v.entry().usage());
      if (evict.entrySet().stream().noneMatch(e -> over(e.getKey(), e.getValue(), tally))) {
        chosen.remove(i);
      } else {
        tally.remove(v.entry().queue(), v.entry().usage());
      }
    }
    return List.copyOf(chosen);
  }

  /** {@code entries} with {@code victims} evicted at {@code now}. */
  static Map<String, Admitted> evicted(
      Map<String, Admitted> entries, List<Victim> victims, Instant now) {
    var out = new TreeMap<>(entries);
    for (var v : victims) {
      out.put(v.name(), AdmissionTransitions.overQuota(v.entry(), now));
    }
    return out;
  }

  private static boolean over(String queue, QueueSpec spec, QuotaTally tally) {
    return spec.quota().keySet().stream().anyMatch(c -> tally.excess(queue, c) > 0);
  }

  /** {@code gpu: 4 used, quota 2, may hold 2}, per class the queue is over, for people. */
  private static String why(String queue, QueueSpec spec, QuotaTally tally) {
    var out = new ArrayList<String>();
    for (var c : new java.util.TreeSet<>(spec.quota().keySet())) {
      int excess = tally.excess(queue, c);
      if (excess > 0) {
        int used = tally.used(queue, c);
        out.add(
            c
                + ": "
                + used
                + " used, quota "
                + spec.quota().get(c)
                + ", may hold "
                + (used - excess));
      }
    }
    return String.join("; ", out);
  }
}
