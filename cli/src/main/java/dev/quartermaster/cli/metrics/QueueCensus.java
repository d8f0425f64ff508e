package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.queue.Queue;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The queues counted for the scrape, from their specs (quota) and the admission controller's
 * summary in their statuses (pending, admitted, used, borrowed). Per queue, every class it has a
 * quota of or uses is present, zero included, so a series does not vanish when its count drops to
 * nothing.
 */
public record QueueCensus(
    Map<String, Long> pending,
    Map<String, Long> admitted,
    Map<QueueClass, Long> used,
    Map<QueueClass, Long> borrowed,
    Map<QueueClass, Long> quota) {
  public QueueCensus {
    pending = Map.copyOf(pending);
    admitted = Map.copyOf(admitted);
    used = Map.copyOf(used);
    borrowed = Map.copyOf(borrowed);
    quota = Map.copyOf(quota);
  }

  public static QueueCensus of(Collection<Queue> queues) {
    var pending = new HashMap<String, Long>();
    var admitted = new HashMap<String, Long>();
    var used = new HashMap<QueueClass, Long>();
    var borrowed = new HashMap<QueueClass, Long>();
    var quota = new HashMap<QueueClass, Long>();
    for (var q : queues) {
      var name = q.metadata().name();
      var status = q.status();
      pending.put(name, (long) status.pending());
      admitted.put(name, (long) status.admitted());
      var classes = new TreeSet<String>(q.spec().quota().keySet());
      classes.addAll(status.used().keySet());
      for (var c : classes) {
        var key = new QueueClass(name, c);
        used.put(key, (long) status.used().getOrDefault(c, 0));
        borrowed.put(key, (long) status.borrowed().getOrDefault(c, 0));
      }
      q.spec().quota().forEach((c, n) -> quota.put(new QueueClass(name, c), (long) n));
    }
    return new QueueCensus(pending, admitted, used, borrowed, quota);
  }
}
