package dev.quartermaster.bench;

import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** Counts the store's writes from now on: transactions (revisions) and object writes by kind. */
final class WriteCensus implements AutoCloseable {
  private static final String REGISTRY = "/registry/";
  private final Map<String, AtomicLong> byKind = new ConcurrentHashMap<>();
  private final AtomicLong lastRevision = new AtomicLong();
  private final long fromRevision;
  private final Watch watch;

  private WriteCensus(Store store) {
    this.fromRevision = store.currentRevision();
    this.lastRevision.set(fromRevision);
    this.watch =
        store.watch(
            REGISTRY,
            fromRevision,
            new WatchListener() {
              @Override
              public void onEvent(StoreEvent event) {
                var rest = event.kv().key().substring(REGISTRY.length());
                byKind
                    .computeIfAbsent(rest.substring(0, rest.indexOf('/')), k -> new AtomicLong())
                    .incrementAndGet();
                lastRevision.accumulateAndGet(event.revision(), Math::max);
              }

              @Override
              public void onCompacted(long compactedRevision) {}
            });
  }

  static WriteCensus watch(Store store) {
    return new WriteCensus(store);
  }

  /**
   * Waits (10 s at most) until the watch has delivered every transaction up to {@code revision}: a
   * figure read at once could miss the last one, which for a gang is all its placement.
   */
  WriteCensus upTo(long revision) throws InterruptedException {
    for (int waited = 0; waited < 2_000 && lastRevision.get() < revision; waited++) {
      Thread.sleep(5);
    }
    return this;
  }

  /** Revisions seen so far: each is one committed transaction. */
  long transactions() {
    return lastRevision.get() - fromRevision;
  }

  /** Object writes per {@code per} (e.g. per task), by kind, most first. */
  String perKind(int per) {
    return new TreeMap<>(byKind)
        .entrySet().stream()
            .sorted((a, b) -> Long.compare(b.getValue().get(), a.getValue().get()))
            .map(e -> String.format("%s %.1f", e.getKey(), e.getValue().get() / (double) per))
            .collect(Collectors.joining(", "));
  }

  @Override
  public void close() {
    watch.close();
  }
}
