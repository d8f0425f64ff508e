package dev.quartermaster.cli.watch;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.cli.CliException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Predicate;

/**
 * Lists a kind, then follows its changes from the list's revision: the loop behind {@code qm get
 * -w}.
 *
 * <p>When the server has compacted the history the watch needs (410), it lists again, reports what
 * changed in between as ordinary changes, and watches on from the new revision. Watch callbacks
 * only enqueue; everything else runs on the caller's thread, so the sink sees one call at a time.
 * Each watch started gets a number, and signals from an earlier watch are ignored, so a late
 * callback of a watch we already replaced cannot deliver a stale event.
 */
public final class ListWatch<T extends ApiObject> {
  /** A watch that ends this many times in a row without delivering anything is given up on. */
  static final int MAX_QUIET_RESTARTS = 3;

  private sealed interface Signal {
    long watch();
  }

  private record Event<T extends ApiObject>(long watch, WatchEvent<T> event) implements Signal {}

  private record Gone(long watch) implements Signal {}

  private record Closed(long watch, String reason) implements Signal {}

  private record Stop(long watch) implements Signal {}

  private final ApiClient api;
  private final Kind<T> kind;
  private final LabelSelector selector;
  private final Predicate<T> filter;
  private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();

  /** The last state shown of each matching object, by name: what a re-list is compared against. */
  private final Map<String, T> shown = new HashMap<>();

  private long watchNumber;
  private long revision;

  /**
   * Follows objects of {@code kind} matching {@code selector} and {@code filter} (e.g. one name).
   */
  public ListWatch(ApiClient api, Kind<T> kind, LabelSelector selector, Predicate<T> filter) {
    this.api = api;
    this.kind = kind;
    this.selector = selector;
    this.filter = filter;
  }

  /** Asks {@link #run} to return; safe from any thread. */
  public void stop() {
    signals.add(new Stop(-1));
  }

  /** Lists, reports, then follows changes until {@link #stop} or the thread is interrupted. */
  public void run(WatchSink<T> sink) throws InterruptedException {
    var first = api.list(kind, selector);
    var matching = first.items().stream().filter(filter).toList();
    matching.forEach(o -> shown.put(o.metadata().name(), o));
    revision = first.revision();
    sink.listed(matching);
    var handle = startWatch();
    int quietRestarts = 0;
    try {
      while (true) {
        var signal = signals.take();
        if (signal instanceof Stop) {
          return;
        }
        if (signal.watch() != watchNumber) {
          continue;
        }
        switch (signal) {
          case Event<?> e -> {
            quietRestarts = 0;
            apply(kind.cast(e.event().object()), e.event().type(), sink);
          }
          case Gone g -> {
            handle.close();
            relist(sink);
            handle = startWatch();
          }
          case Closed c -> {
            handle.close();
            if (++quietRestarts > MAX_QUIET_RESTARTS) {
              throw new CliException("watch of " + kind.plural() + " ended: " + c.reason());
            }
            handle = startWatch();
          }
          case Stop s -> {
            return;
          }
        }
      }
    } finally {
      handle.close();
    }
  }

  private WatchHandle startWatch() {
    long number = ++watchNumber;
    return api.watch(
        kind,
        revision,
        new WatchHandler<T>() {
          @Override
          public void onEvent(WatchEvent<T> event) {
            signals.add(new Event<>(number, event));
          }

          @Override
          public void onGone(long compactedRevision) {
            signals.add(new Gone(number));
          }

          @Override
          public void onClosed(String reason) {
            signals.add(new Closed(number, reason));
          }
        });
  }

  /**
   * Reports one change, judged against the filter: an object that stops matching leaves the view as
   * DELETED.
   */
  private void apply(T object, WatchEvent.Type type, WatchSink<T> sink) {
    if (object.metadata().revision() <= revision && type != WatchEvent.Type.DELETED) {
      return; // already seen in a list
    }
    revision = Math.max(revision, object.metadata().revision());
    var name = object.metadata().name();
    var wasShown = shown.containsKey(name);
    var matches =
        type != WatchEvent.Type.DELETED
            && filter.test(object)
            && selector.matches(object.metadata().labels());
    if (matches) {
      shown.put(name, object);
      sink.changed(wasShown ? WatchEvent.Type.MODIFIED : WatchEvent.Type.ADDED, object);
    } else if (wasShown) {
      shown.remove(name);
      sink.changed(WatchEvent.Type.DELETED, object);
    }
  }

  /**
   * Lists again and reports the difference from what was shown, as if the lost events had arrived.
   */
  private void relist(WatchSink<T> sink) {
    var list = api.list(kind, selector);
    sink.relisted();
    var now = list.items().stream().filter(filter).toList();
    var seen = new java.util.HashSet<String>();
    for (var o : now) {
      var name = o.metadata().name();
      seen.add(name);
      var before = shown.get(name);
      if (before == null || before.metadata().revision() != o.metadata().revision()) {
        shown.put(name, o);
        sink.changed(before == null ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, o);
      }
    }
    for (var name : List.copyOf(shown.keySet())) {
      if (!seen.contains(name)) {
        sink.changed(WatchEvent.Type.DELETED, shown.remove(name));
      }
    }
    revision = list.revision();
  }
}
