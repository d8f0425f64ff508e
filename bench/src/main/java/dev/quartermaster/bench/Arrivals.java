package dev.quartermaster.bench;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Objects of one kind reaching a state, on a watch from a revision: how many have (each counted
 * once), and when the last of them did. "Every claim allocated", "every task placed".
 */
final class Arrivals<T extends ApiObject> implements AutoCloseable {
  private final CountDownLatch left;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicLong lastNanos = new AtomicLong();
  private final WatchHandle watch;

  private Arrivals(ApiClient api, Kind<T> kind, long from, int expected, Predicate<T> reached) {
    this.left = new CountDownLatch(expected);
    this.watch =
        api.watch(
            kind,
            from,
            new WatchHandler<T>() {
              @Override
              public void onEvent(WatchEvent<T> e) {
                if (reached.test(e.object()) && seen.add(e.object().metadata().name())) {
                  lastNanos.set(Stopwatch.nanos());
                  left.countDown();
                }
              }

              @Override
              public void onGone(long compactedRevision) {}
            });
  }

  /** Watches {@code kind} from revision {@code from} for {@code expected} objects to reach it. */
  static <T extends ApiObject> Arrivals<T> watch(
      ApiClient api, Kind<T> kind, long from, int expected, Predicate<T> reached) {
    return new Arrivals<>(api, kind, from, expected, reached);
  }

  /** Waits until all expected have arrived or {@code limit} has passed; how many have not. */
  long await(Duration limit) throws InterruptedException {
    left.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    return left.getCount();
  }

  /** {@link Stopwatch#nanos} when the last arrival so far was seen (0: none yet). */
  long lastNanos() {
    return lastNanos.get();
  }

  @Override
  public void close() {
    watch.close();
  }
}
