package dev.quartermaster.cli;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** One change a watch saw, for tests that judge a real cluster's history in revision order. */
public record WatchedChange(long revision, ApiObject object, boolean deleted) {

  /**
   * Records every change of {@code kind} after {@code from} into {@code into} (synchronized on it);
   * a compacted history fails the test, since changes would be missed.
   */
  public static <T extends ApiObject> WatchHandle record(
      ApiClient api, Kind<T> kind, long from, List<WatchedChange> into) {
    return record(api, kind, from, into, new AtomicLong(-1));
  }

  /**
   * As above; {@code caughtUp} is set to the revision the watch's replay reached once it has (every
   * change of {@code kind} up to it is then in {@code into}): what a test reading back a history
   * waits for, kind by kind, since one kind's watch may lag behind another's.
   */
  public static <T extends ApiObject> WatchHandle record(
      ApiClient api, Kind<T> kind, long from, List<WatchedChange> into, AtomicLong caughtUp) {
    return api.watch(
        kind,
        from,
        new WatchHandler<T>() {
          @Override
          public void onEvent(WatchEvent<T> e) {
            synchronized (into) {
              into.add(
                  new WatchedChange(e.revision(), e.object(), e.type() == WatchEvent.Type.DELETED));
            }
          }

          @Override
          public void onCaughtUp(long revision) {
            caughtUp.set(revision);
          }

          @Override
          public void onGone(long compactedRevision) {
            throw new AssertionError(
                kind.plural()
                    + " watch compacted at "
                    + compactedRevision
                    + ": changes were missed");
          }
        });
  }
}
