package dev.quartermaster.cli.watch;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.meta.ApiObject;
import java.util.List;

/**
 * Where a {@link ListWatch} reports what it sees; calls come one at a time, on the thread running
 * the watch.
 */
public interface WatchSink<T extends ApiObject> {

  /** The first list: every matching object at the start. */
  void listed(List<T> objects);

  /**
   * One change to a matching object (or one that stopped matching, reported as {@code DELETED}).
   */
  void changed(WatchEvent.Type type, T object);

  /**
   * The watch history was compacted and the kind was listed again; what changed in between follows
   * through {@link #changed}.
   */
  void relisted();
}
