package dev.quartermaster.control.workload;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Creation in batches of 1, 2, 4, … per group, as ReplicaSet does: one batch per pass, and the next
 * pass comes only after the cache shows the batch ({@link GroupExpectations}) and the spec has been
 * read live again. So a scale-up that the spec has since cut short stops within a batch, and a
 * template that cannot be created fails once rather than a few hundred times.
 */
final class SlowStart {
  private final Map<String, Integer> next = new ConcurrentHashMap<>();

  /** How many tasks {@code key} may create in this pass. */
  int batch(String key) {
    return next.getOrDefault(key, 1);
  }

  /** The pass created {@code created} of its batch and {@code left} remain to create. */
  void done(String key, int created, int left) {
    if (left > 0 && created >= batch(key)) {
      next.put(key, batch(key) * 2);
    } else {
      next.remove(key);
    }
  }

  void forgetAll(String prefix) {
    next.keySet().removeIf(k -> k.startsWith(prefix));
  }
}
