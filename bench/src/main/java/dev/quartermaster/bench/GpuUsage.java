package dev.quartermaster.bench;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Devices held on each node, as the allocation records say, kept on a watch. */
final class GpuUsage implements AutoCloseable {
  private final Map<String, Integer> held = new ConcurrentHashMap<>();
  private final WatchHandle watch;

  private GpuUsage(ApiClient api) {
    var list = api.list(Kinds.NODE_ALLOCATION);
    list.items().forEach(this::put);
    this.watch =
        api.watch(
            Kinds.NODE_ALLOCATION,
            list.revision(),
            new WatchHandler<NodeAllocation>() {
              @Override
              public void onEvent(WatchEvent<NodeAllocation> e) {
                if (e.type() == WatchEvent.Type.DELETED) {
                  held.remove(e.object().metadata().name());
                } else {
                  put(e.object());
                }
              }

              @Override
              public void onGone(long compactedRevision) {}
            });
  }

  static GpuUsage watch(ApiClient api) {
    return new GpuUsage(api);
  }

  private void put(NodeAllocation r) {
    held.put(r.metadata().name(), r.spec().devices().size());
  }

  /** Devices held on {@code node}. */
  int on(String node) {
    return held.getOrDefault(node, 0);
  }

  int total() {
    return held.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Waits (60 s at most) until {@code expected} devices are held in all; whether they are. */
  boolean awaitTotal(int expected) throws InterruptedException {
    for (int waited = 0; waited < 12_000; waited++) {
      if (total() == expected) {
        return true;
      }
      Thread.sleep(5);
    }
    return false;
  }

  @Override
  public void close() {
    watch.close();
  }
}
