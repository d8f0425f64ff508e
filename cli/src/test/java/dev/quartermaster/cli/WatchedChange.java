package dev.quartermaster.cli;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.List;

/** One change a watch saw, for tests that judge a real cluster's history in revision order. */
public record WatchedChange(long revision, ApiObject object, boolean deleted) {

  /**
   * Records every change of {@code kind} after {@code from} into {@code into} (synchronized on it);
   * a compacted history fails the test, since changes would be missed.
   */
  public static <T extends ApiObject> WatchHandle record(ApiClient api, Kind<T> kind, long from, List<WatchedChange> into) {
    return api.watch(kind, from, new WatchHandler<T>() {
      @Override
      public void onEvent(WatchEvent<T> e) {
        synchronized (into) {
          into.add(new WatchedChange(e.revision(), e.object(), e.type() == WatchEvent.Type.DELETED));
        }
      }

      @Override
      public void onGone(long compactedRevision) {
        throw new AssertionError(kind.plural() + " watch compacted at " + compactedRevision + ": changes were missed");
      }
    });
  }
}
