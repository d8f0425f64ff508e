package dev.quartermaster.api.queue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link CohortQuota}'s arithmetic kept up to date as workloads are added and removed one at a
 * time, for a decision that tries thousands of them: each {@link #add}, {@link #remove} and {@link
 * #breach} costs the classes of one workload, not the cohort's queues. The cohort's totals (what
 * its queues borrow and lend, per class) and the queues past their borrowing limit are kept as they
 * change, so Q1 is judged without a pass over the queues. (A decision that summed them again for
 * every workload it tried cost the square of the cohort: 10,000 queues in one cohort stalled
 * admission for minutes.)
 *
 * <p>Mutable and not thread-safe: one decision's working copy. Its figures are {@link
 * CohortQuota}'s, per queue by the same formulas, summed in {@code long} as it sums them (a tally's
 * sums are of {@code int} counts of at most a few hundred thousand queues, so they never come near
 * saturating, and a removal undoes an addition exactly); {@link #visits} counts how many times it
 * looked at one queue's figures, which tests use to check that a decision's cost grows linearly.
 */
public final class QuotaTally implements QuotaFigures {
  private final Map<String, QueueSpec> queues;

  /** The queues' names in order, for laying what is lent on lenders (made when first needed). */
  private TreeSet<String> names;

  /** Queue → class → devices its admitted workloads use. */
  private final Map<String, Map<String, Long>> used = new HashMap<>();

  /** Class → what the cohort's queues borrow of it, all together. */
  private final Map<String, Long> borrowed = new HashMap<>();

  /** Class → what the cohort's queues lend of it, all together. */
  private final Map<String, Long> lendable = new HashMap<>();

  /** Class → the queues that borrow past their borrowing limit of it. */
  private final Map<String, TreeSet<String>> overLimit = new HashMap<>();

  /** Class → the queues that borrow some of it. */
  private final Map<String, Set<String>> borrowers = new HashMap<>();

  /** A queue not of the cohort that an entry names → how many entries name it. */
  private final TreeMap<String, Integer> strangers = new TreeMap<>();

  private long visits;

  private QuotaTally(Map<String, QueueSpec> queues) {
    this.queues = queues;
    for (var e : queues.entrySet()) {
      visits++;
      for (var c : e.getValue().quota().keySet()) {
        lendable.merge(c, lendableExactly(e.getKey(), c), Long::sum);
      }
    }
  }

  /** The cohort of {@code queues} with {@code admitted} in it. */
  public static QuotaTally of(Map<String, QueueSpec> queues, Map<String, Admitted> admitted) {
    var tally = new QuotaTally(Map.copyOf(queues));
    admitted.values().forEach(a -> tally.add(a.queue(), a.usage()));
    return tally;
  }

  /** {@code quota}'s figures, to be changed. */
  public static QuotaTally of(CohortQuota quota) {
    var tally = new QuotaTally(quota.queues());
    quota.used().forEach((q, u) -> tally.change(q, u, 1));
    return tally;
  }

  /** A copy to change on its own; its visits count from its making. */
  public QuotaTally copy() {
    var out = new QuotaTally(queues);
    used.forEach((q, u) -> out.change(q, u, 1));
    strangers.forEach((q, n) -> out.strangers.put(q, n));
    return out;
  }

  /** {@code usage} admitted through {@code queue} too. */
  public void add(String queue, Map<String, Integer> usage) {
    change(queue, usage, 1);
  }

  /** {@code usage} of {@code queue} released. */
  public void remove(String queue, Map<String, Integer> usage) {
    change(queue, usage, -1);
  }

  /**
   * Whether Q1 would hold with {@code usage} admitted through {@code queue} too; changes nothing.
   */
  public boolean fits(String queue, Map<String, Integer> usage) {
    add(queue, usage);
    try {
      // Judged in the classes it asks for: a quota lowered under what is admitted leaves its
      // cohort over quota of that class alone, until enough of it finishes.
      return breach(usage.keySet()).isEmpty();
    } finally {
      remove(queue, usage);
    }
  }

  private void change(String queue, Map<String, ? extends Number> usage, int sign) {
    visits++;
    var spec = queues.get(queue);
    if (spec == null) {
      // Its usage counts nowhere (it limits nothing), but Q1 does not hold while it is named.
      strangers.merge(queue, sign, Integer::sum);
      strangers.remove(queue, 0);
    }
    var u = used.computeIfAbsent(queue, q -> new HashMap<>());
    for (var e : usage.entrySet()) {
      var c = e.getKey();
      long b0 = borrowedExactly(queue, c);
      long l0 = lendableExactly(queue, c);
      long n = u.getOrDefault(c, 0L) + sign * e.getValue().longValue();
      if (n == 0) {
        u.remove(c);
      } else {
        u.put(c, n);
      }
      long b1 = borrowedExactly(queue, c);
      long l1 = lendableExactly(queue, c);
      if (b1 != b0) {
        borrowed.merge(c, b1 - b0, Long::sum);
        if (b1 > 0) {
          borrowers.computeIfAbsent(c, k -> new HashSet<>()).add(queue);
        } else {
          borrowers.getOrDefault(c, Set.of()).remove(queue);
        }
      }
      if (l1 != l0) {
        lendable.merge(c, l1 - l0, Long::sum);
      }
      var limit = spec == null ? null : spec.borrowingLimit().get(c);
      if (limit != null && b1 > limit) {
        overLimit.computeIfAbsent(c, k -> new TreeSet<>()).add(queue);
      } else if (overLimit.containsKey(c)) {
        overLimit.get(c).remove(queue);
      }
    }
    if (u.isEmpty()) {
      used.remove(queue);
    }
  }

  public int used(String queue, String deviceClass) {
    return Counts.toInt(usedExactly(queue, deviceClass));
  }

  public int borrowed(String queue, String deviceClass) {
    return Counts.toInt(borrowedExactly(queue, deviceClass));
  }

  public int lendable(String queue, String deviceClass) {
    return Counts.toInt(lendableExactly(queue, deviceClass));
  }

  /** What the cohort borrows of {@code deviceClass}, all queues together. */
  public int borrowed(String deviceClass) {
    return Counts.toInt(borrowed.getOrDefault(deviceClass, 0L));
  }

  /** What the cohort's queues lend of {@code deviceClass}, all together. */
  public int lendable(String deviceClass) {
    return Counts.toInt(lendable.getOrDefault(deviceClass, 0L));
  }

  private long usedExactly(String queue, String deviceClass) {
    var u = used.get(queue);
    return u == null ? 0 : u.getOrDefault(deviceClass, 0L);
  }

  private long borrowedExactly(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    return nominal == null ? 0 : Math.max(0, usedExactly(queue, deviceClass) - nominal);
  }

  private long lendableExactly(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    if (nominal == null) {
      return 0;
    }
    long unused = Math.max(0, nominal - usedExactly(queue, deviceClass));
    var limit = queues.get(queue).lendingLimit().get(deviceClass);
    return limit == null ? unused : Math.min(limit, unused);
  }

  /**
   * How much of {@code deviceClass} {@code queue} uses beyond what it may hold: its nominal quota
   * plus what it may borrow that the cohort can actually lend (0 when within, and for a class it
   * does not limit). Past its own borrowing limit, the part above it; and while the cohort borrows
   * more than its queues lend, as much of that overdraft as it borrows: what others lend goes to
   * what others borrow first, so it may borrow only what is left, {@code max(0, lendable - others'
   * borrowing)}, and {@code borrowed - that} is {@code min(borrowed, cohort's borrowing -
   * lendable)}. Evicting that much of its usage makes it 0 (its lending does not change while it
   * borrows). What {@link dev.quartermaster.api.queue.OverQuota#Evict} takes back.
   */
  public int excess(String queue, String deviceClass) {
    long borrows = borrowedExactly(queue, deviceClass);
    if (borrows <= 0) {
      return 0;
    }
    var limit = queues.get(queue).borrowingLimit().get(deviceClass);
    long overLimit = limit == null ? 0 : borrows - limit;
    long overdraft =
        borrowed.getOrDefault(deviceClass, 0L) - lendable.getOrDefault(deviceClass, 0L);
    return Counts.toInt(Math.max(0, Math.max(overLimit, Math.min(borrows, overdraft))));
  }

  /** The queues that borrow some of {@code deviceClass} now. */
  public Set<String> borrowers(String deviceClass) {
    return Set.copyOf(borrowers.getOrDefault(deviceClass, Set.of()));
  }

  /**
   * Whether {@code usage} admitted through {@code queue} would keep it within its nominal quota of
   * every class it limits (the preemptor's side of a reclaim).
   */
  public boolean withinNominal(String queue, Map<String, Integer> usage) {
    for (var e : usage.entrySet()) {
      var nominal = nominal(queue, e.getKey());
      if (nominal != null && usedExactly(queue, e.getKey()) + e.getValue() > nominal) {
        return false;
      }
    }
    return true;
  }

  /**
   * Queue → how much of what it does not use others borrow now, for every queue that lends some of
   * {@code deviceClass}: the cohort's borrowing laid on its lenders in name order ({@link
   * CohortQuota#lent}), in one pass that stops once all of it is laid.
   */
  public Map<String, Integer> lent(String deviceClass) {
    var out = new LinkedHashMap<String, Integer>();
    long owed = borrowed.getOrDefault(deviceClass, 0L);
    if (owed <= 0) {
      return out;
    }
    if (names == null) {
      names = new TreeSet<>(queues.keySet());
    }
    for (var q : names) {
      visits++;
      long l = Math.min(owed, lendableExactly(q, deviceClass));
      if (l > 0) {
        out.put(q, Counts.toInt(l));
        owed -= l;
      }
      if (owed == 0) {
        break;
      }
    }
    return out;
  }

  /**
   * Why Q1 does not hold, worded as {@link CohortQuota#breach}, or empty when it holds; costs the
   * classes, not the queues.
   */
  public Optional<String> breach() {
    return breachIn(c -> true);
  }

  /**
   * As {@link #breach()}, in {@code classes} only, each judged on its own, as {@link
   * CohortQuota#breach(java.util.Collection)} does.
   */
  public Optional<String> breach(java.util.Collection<String> classes) {
    return breachIn(classes::contains);
  }

  private Optional<String> breachIn(java.util.function.Predicate<String> judged) {
    if (!strangers.isEmpty()) {
      return Optional.of("queue " + strangers.firstKey() + " is not of this cohort");
    }
    var classes = new TreeSet<String>();
    overLimit.forEach(
        (c, qs) -> {
          if (!qs.isEmpty() && judged.test(c)) {
            classes.add(c);
          }
        });
    borrowed.forEach(
        (c, b) -> {
          if (b > lendable.getOrDefault(c, 0L) && judged.test(c)) {
            classes.add(c);
          }
        });
    if (classes.isEmpty()) {
      return Optional.empty();
    }
    var c = classes.first();
    var over = overLimit.getOrDefault(c, new TreeSet<>());
    if (!over.isEmpty()) {
      var q = over.first();
      return Optional.of(
          "queue "
              + q
              + ": "
              + c
              + ": "
              + usedExactly(q, c)
              + " used, nominal "
              + nominal(q, c)
              + ", borrowing limit "
              + queues.get(q).borrowingLimit().get(c));
    }
    return Optional.of(
        c
            + ": the cohort's queues borrow "
            + borrowed.getOrDefault(c, 0L)
            + ", and lend only "
            + lendable.getOrDefault(c, 0L));
  }

  /** These figures as a {@link CohortQuota} (a pass over the queues that use something). */
  public CohortQuota snapshot() {
    visits += used.size();
    return new CohortQuota(queues, used);
  }

  /** How many times this tally looked at one queue's figures. */
  public long visits() {
    return visits;
  }

  /** Counts {@code n} more visits made on this tally's behalf (a caller's pass over queues). */
  public void visited(long n) {
    visits += n;
  }

  private Integer nominal(String queue, String deviceClass) {
    var spec = queues.get(queue);
    return spec == null ? null : spec.quota().get(deviceClass);
  }
}
