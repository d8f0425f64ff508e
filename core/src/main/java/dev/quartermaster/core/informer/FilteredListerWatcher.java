package dev.quartermaster.core.informer;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Only the objects of a source that {@code keep} accepts, as if the source held nothing else: an
 * object that stops being kept arrives as deleted, one that starts being kept as added, and a
 * change to an object that is not kept becomes a bookmark (so the informer's synced revision still
 * moves on). For a node agent, which lists every task and claim of the cluster, and whose watch may
 * tell it more than its own node's (the server routes live changes by node, not a replayed
 * history), but which acts on its own node's: its cache and handlers see only those.
 *
 * <p>{@code keep} may read state of its own (what the agent runs, what its ledger holds) as long as
 * an object that state makes kept is also told to the informer by a change of its own; it is asked
 * once per change, in revision order.
 */
public final class FilteredListerWatcher<T> implements ListerWatcher<T> {
  private final ListerWatcher<T> source;
  private final Predicate<T> keep;
  private final Function<T, String> keyOf;

  /** Keys kept, as of the last change passed on: what the informer's cache holds. */
  private final Set<String> kept = ConcurrentHashMap.newKeySet();

  public FilteredListerWatcher(
      ListerWatcher<T> source, Predicate<T> keep, Function<T, String> keyOf) {
    this.source = Objects.requireNonNull(source, "source");
    this.keep = Objects.requireNonNull(keep, "keep");
    this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
  }

  @Override
  public Listing<T> list() throws Exception {
    var listing = source.list();
    var items = listing.items().stream().filter(keep).toList();
    kept.clear();
    items.forEach(o -> kept.add(keyOf.apply(o)));
    return new Listing<>(items, listing.revision());
  }

  @Override
  public Subscription watch(long afterRevision, WatchSink<T> sink) throws Exception {
    return source.watch(
        afterRevision,
        new WatchSink<>() {
          @Override
          public void event(WatchEvent<T> event) {
            var object = event.object();
            var key = keyOf.apply(object);
            long revision = event.revision();
            boolean was = kept.contains(key);
            boolean is = !(event instanceof WatchEvent.Deleted<T>) && keep.test(object);
            if (is) {
              kept.add(key);
              sink.event(
                  was
                      ? new WatchEvent.Modified<>(object, revision)
                      : new WatchEvent.Added<>(object, revision));
            } else if (was) {
              kept.remove(key);
              sink.event(new WatchEvent.Deleted<>(object, revision));
            } else {
              sink.bookmark(revision);
            }
          }

          @Override
          public void bookmark(long revision) {
            sink.bookmark(revision);
          }

          @Override
          public void compacted() {
            sink.compacted();
          }

          @Override
          public void closed(String reason) {
            sink.closed(reason);
          }
        });
  }
}
