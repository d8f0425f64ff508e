package dev.quartermaster.api.queue;

import java.util.HashMap;
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
 * @param queues the cohort's queues by name
 * @param used queue → class → devices its admitted workloads use
 */
public record CohortQuota(Map<String, QueueSpec> queues, Map<String, Map<String, Integer>> used) {
  public CohortQuota {
    queues = Map.copyOf(queues);
    var copy = new HashMap<String, Map<String, Integer>>();
    used.forEach((q, u) -> copy.put(q, Map.copyOf(u)));
    used = Map.copyOf(copy);
  }

  /** The cohort's quota with {@code admitted} in it. */
  public static CohortQuota of(Map<String, QueueSpec> queues, Map<String, Admitted> admitted) {
    var used = new HashMap<String, Map<String, Integer>>();
    for (var a : admitted.values()) {
      var u = used.computeIfAbsent(a.queue(), q -> new HashMap<>());
      a.usage().forEach((c, n) -> u.merge(c, n, Integer::sum));
    }
    return new CohortQuota(queues, used);
  }

  /** This quota with {@code usage} admitted through {@code queue} too. */
  public CohortQuota plus(String queue, Map<String, Integer> usage) {
    var next = new HashMap<>(used);
    var u = new HashMap<>(next.getOrDefault(queue, Map.of()));
    usage.forEach((c, n) -> u.merge(c, n, Integer::sum));
    next.put(queue, u);
    return new CohortQuota(queues, next);
  }

  /** This quota with {@code usage} of {@code queue} released. */
  public CohortQuota minus(String queue, Map<String, Integer> usage) {
    var negated = new HashMap<String, Integer>();
    usage.forEach((c, n) -> negated.put(c, -n));
    return plus(queue, negated);
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
                  || used(queue, e.getKey()) + e.getValue() <= nominal.getAsInt();
            });
  }

  public int used(String queue, String deviceClass) {
    return used.getOrDefault(queue, Map.of()).getOrDefault(deviceClass, 0);
  }

  public int borrowed(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    return nominal.isEmpty() ? 0 : Math.max(0, used(queue, deviceClass) - nominal.getAsInt());
  }

  public int lendable(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    if (nominal.isEmpty()) {
      return 0;
    }
    int unused = Math.max(0, nominal.getAsInt() - used(queue, deviceClass));
    var limit = Optional.ofNullable(spec(queue).lendingLimit().get(deviceClass));
    return limit.map(l -> Math.min(l, unused)).orElse(unused);
  }

  /** What the cohort borrows of {@code deviceClass}, all queues together. */
  public int borrowed(String deviceClass) {
    return queues.keySet().stream().mapToInt(q -> borrowed(q, deviceClass)).sum();
  }

  /** What the cohort's queues lend of {@code deviceClass}, all together. */
  public int lendable(String deviceClass) {
    return queues.keySet().stream().mapToInt(q -> lendable(q, deviceClass)).sum();
  }

  /**
   * Of what {@code queue} does not use, how much others borrow now: the cohort's borrowing laid on
   * its lenders in name order (for people; Q1 needs only the totals).
   */
  public int lent(String queue, String deviceClass) {
    int owed = borrowed(deviceClass);
    for (var q : new TreeSet<>(queues.keySet())) {
      int l = Math.min(owed, lendable(q, deviceClass));
      if (q.equals(queue)) {
        return l;
      }
      owed -= l;
    }
    return 0;
  }

  /**
   * How many more devices of {@code deviceClass} {@code queue} may be admitted: empty when the
   * queue does not limit the class.
   */
  public OptionalInt room(String queue, String deviceClass) {
    var nominal = nominal(queue, deviceClass);
    if (nominal.isEmpty()) {
      return OptionalInt.empty();
    }
    int own = Math.max(0, nominal.getAsInt() - used(queue, deviceClass));
    int spare =
        lendable(deviceClass) - lendable(queue, deviceClass) - othersBorrowed(queue, deviceClass);
    var limit = Optional.ofNullable(spec(queue).borrowingLimit().get(deviceClass));
    int mayBorrow =
        Math.max(0, limit.map(l -> l - borrowed(queue, deviceClass)).orElse(Integer.MAX_VALUE));
    return OptionalInt.of(own + Math.max(0, Math.min(spare, mayBorrow)));
  }

  private int othersBorrowed(String queue, String deviceClass) {
    return borrowed(deviceClass) - borrowed(queue, deviceClass);
  }

  /**
   * Why Q1 does not hold ({@code queue team-a: gpu: 20 used, nominal 16, borrowing limit 2}), or
   * empty when it holds.
   */
  public Optional<String> breach() {
    for (var q : new TreeSet<>(used.keySet())) {
      if (!queues.containsKey(q)) {
        return Optional.of("queue " + q + " is not of this cohort");
      }
    }
    var classes = new TreeSet<String>();
    used.values().forEach(u -> classes.addAll(u.keySet()));
    for (var c : classes) {
      for (var q : new TreeMap<>(queues).keySet()) {
        var limit = spec(q).borrowingLimit().get(c);
        if (limit != null && borrowed(q, c) > limit) {
          return Optional.of(
              "queue "
                  + q
                  + ": "
                  + c
                  + ": "
                  + used(q, c)
                  + " used, nominal "
                  + nominal(q, c).getAsInt()
                  + ", borrowing limit "
                  + limit);
        }
      }
      if (borrowed(c) > lendable(c)) {
        return Optional.of(
            c + ": the cohort's queues borrow " + borrowed(c) + ", and lend only " + lendable(c));
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
