package dev.quartermaster.api.queue;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The quota arithmetic of one cohort, per device class: the store's guard, the admission
 * controller, {@code describe} and the simulation all ask this, so they cannot disagree.
 *
 * <p>For queue q and class c: {@code used} is what q's admitted workloads use; {@code borrowed =
 * max(0, used - nominal)}; {@code lendable = min(lendingLimit, max(0, nominal - used))} (a queue
 * that does not limit c neither borrows nor lends it). <b>Q1</b> holds when every queue's borrowed
 * is within its borrowing limit and, per class, what the cohort borrows is at most what it lends.
 *
 * <p>Every sum is a {@code long}: a quota may be {@code Integer.MAX_VALUE}, and two of them (or the
 * usage of many workloads) overflow an {@code int}, which made a cohort's room negative and stopped
 * it. What is read as an {@code int} ({@link #used}, {@link #room}, ...) saturates at the bounds of
 * an {@code int} instead of wrapping; {@link #breach} compares the exact sums.
 *
 * @param queues the cohort's queues by name
 * @param used queue → class → devices its admitted workloads use
 */
public record CohortQuota(Map<String, QueueSpec> queues, Map<String, Map<String, Long>> used)
    implements QuotaFigures {
  public CohortQuota {
    queues = Map.copyOf(queues);
    var copy = new HashMap<String, Map<String, Long>>();
    used.forEach((q, u) -> copy.put(q, Map.copyOf(u)));
    used = Map.copyOf(copy);
  }

  /** The cohort's quota with {@code admitted} in it. */
  public static CohortQuota of(Map<String, QueueSpec> queues, Map<String, Admitted> admitted) {
    var used = new HashMap<String, Map<String, Long>>();
    for (var a : admitted.values()) {
      var u = used.computeIfAbsent(a.queue(), q -> new HashMap<>());
      a.usage().forEach((c, n) -> u.merge(c, (long) n, Counts::sum));
    }
    return new CohortQuota(queues, used);
  }

  /** This quota with {@code usage} admitted through {@code queue} too. */
  public CohortQuota plus(String queue, Map<String, Integer> usage) {
    return adding(queue, usage, 1);
  }

  /** This quota with {@code usage} of {@code queue} released. */
  public CohortQuota minus(String queue, Map<String, Integer> usage) {
    return adding(queue, usage, -1);
  }

  private CohortQuota adding(String queue, Map<String, Integer> usage, long sign) {
    var next = new HashMap<>(used);
    var u = new HashMap<>(next.getOrDefault(queue, Map.of()));
    usage.forEach((c, n) -> u.merge(c, sign * n, Counts::sum));
    next.put(queue, u);
    return new CohortQuota(queues, next);
  }

  /**
   * Whether {@code usage} admitted through {@code queue} would keep it within its nominal quota of
   * every class it limits (the preemptor's side of a reclaim).
   */
  public boolean withinNominal(String queue, Map<String, Integer> usage) {
    return usage.entrySet().stream()
        .allMatch(
            e -> {
              var nominal = nominal(queue, e.getKey());
              return nominal.isEmpty()
                  || Counts.sum(usedExactly(queue, e.getKey()), e.getValue()) <= nominal.getAsInt();
            });
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
    return Counts.toInt(borrowedExactly(deviceClass));
  }

  /** What the cohort's queues lend of {@code deviceClass}, all together. */
  public int lendable(String deviceClass) {
    return Counts.toInt(lendableExactly(deviceClass));
  }

  /**
   * Of what {@code queue} does not use, how much others borrow now: the cohort's borrowing laid on
   * its lenders in name order (for people; Q1 needs only the totals).
   */
  public int lent(String queue, String deviceClass) {
    long owed = borrowedExactly(deviceClass);
    for (var q : new TreeSet<>(queues.keySet())) {
      long l = Math.min(owed, lendableExactly(q, deviceClass));
      if (q.equals(queue)) {
        return Counts.toInt(l);
      }
      owed -= l;
    }
    return 0;
  }

  /**
   * How many more devices of {@code deviceClass} {@code queue} may be admitted, exactly as far as
   * {@link #plus} keeps {@link #breach} empty: empty when the queue does not limit the class, 0
   * while the class is over quota (a quota lowered under what is admitted). What it does not use of
   * its own, less what others borrow of its lending, plus what the others lend beyond what they
   * (and it) borrow already, within its borrowing limit.
   */
  public OptionalInt room(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    if (nominal.isEmpty()) {
      return OptionalInt.empty();
    }
    if (breach(List.of(deviceClass)).isPresent()) {
      return OptionalInt.of(0);
    }
    long own = nominal.getAsInt() - usedExactly(queue, deviceClass); // negative while it borrows
    long othersSpare =
        (lendableExactly(deviceClass) - lendableExactly(queue, deviceClass))
            - (borrowedExactly(deviceClass) - borrowedExactly(queue, deviceClass));
    var limit = Optional.ofNullable(spec(queue).borrowingLimit().get(deviceClass));
    long mayBorrow = limit.map(l -> (long) l).orElse(Long.MAX_VALUE);
    return OptionalInt.of(
        Counts.toInt(Math.max(0, Counts.sum(own, Math.min(othersSpare, mayBorrow)))));
  }

  /** {@link QuotaTally#excess}: what {@code queue} uses of the class beyond what it may hold. */
  public int excess(String queue, String deviceClass) {
    return QuotaTally.of(this).excess(queue, deviceClass);
  }

  private long usedExactly(String queue, String deviceClass) {
    return used.getOrDefault(queue, Map.of()).getOrDefault(deviceClass, 0L);
  }

  private long borrowedExactly(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    return nominal.isEmpty()
        ? 0
        : Math.max(0, usedExactly(queue, deviceClass) - nominal.getAsInt());
  }

  private long lendableExactly(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    if (nominal.isEmpty()) {
      return 0;
    }
    long unused = Math.max(0, nominal.getAsInt() - usedExactly(queue, deviceClass));
    var limit = Optional.ofNullable(spec(queue).lendingLimit().get(deviceClass));
    return limit.map(l -> Math.min(l, unused)).orElse(unused);
  }

  private long borrowedExactly(String deviceClass) {
    return queues.keySet().stream()
        .mapToLong(q -> borrowedExactly(q, deviceClass))
        .reduce(0, Counts::sum);
  }

  private long lendableExactly(String deviceClass) {
    return queues.keySet().stream()
        .mapToLong(q -> lendableExactly(q, deviceClass))
        .reduce(0, Counts::sum);
  }

  /**
   * Why Q1 does not hold ({@code queue team-a: gpu: 20 used, nominal 16, borrowing limit 2}), or
   * empty when it holds.
   */
  public Optional<String> breach() {
    var classes = new TreeSet<String>();
    used.values().forEach(u -> classes.addAll(u.keySet()));
    return breach(classes);
  }

  /**
   * Why Q1 does not hold in any of {@code classes}, or empty. Classes are judged each on its own: a
   * cohort over its quota of one class (a quota lowered under what is admitted) still admits what
   * uses only others.
   */
  public Optional<String> breach(Collection<String> classes) {
    for (var q : new TreeSet<>(used.keySet())) {
      if (!queues.containsKey(q)) {
        return Optional.of("queue " + q + " is not of this cohort");
      }
    }
    for (var c : new TreeSet<>(classes)) {
      for (var q : new TreeMap<>(queues).keySet()) {
        var limit = spec(q).borrowingLimit().get(c);
        if (limit != null && borrowedExactly(q, c) > limit) {
          return Optional.of(
              "queue "
                  + q
                  + ": "
                  + c
                  + ": "
                  + usedExactly(q, c)
                  + " used, nominal "
                  + nominal(q, c).getAsInt()
                  + ", borrowing limit "
                  + limit);
        }
      }
      if (borrowedExactly(c) > lendableExactly(c)) {
        return Optional.of(
            c
                + ": the cohort's queues borrow "
                + borrowedExactly(c)
                + ", and lend only "
                + lendableExactly(c));
      }
    }
    return Optional.empty();
  }

  private OptionalInt nominal(String queue, String deviceClass) {
    return spec(queue).nominal(deviceClass);
  }

  private QueueSpec spec(String queue) {
    return queues.getOrDefault(queue, QueueSpec.UNLIMITED);
  }
}
