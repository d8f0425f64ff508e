package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.ArrayList;

/** An API whose task watch holds its events back once told to, as a lagging cache's does. */
final class HeldTaskWatch extends ForwardingApiClient {
  private volatile boolean held;

  HeldTaskWatch(ApiClient api) {
    super(api);
  }

  void hold() {
    held = true;
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    if (!kind.equals(Kinds.TASK)) {
      return api.watch(kind, afterRevision, scope, handler);
    }
    var later = new ArrayList<Runnable>();
    return api.watch(
        kind,
        afterRevision,
        scope,
        new WatchHandler<T>() {
          @Override
          public void onEvent(WatchEvent<T> event) {
            if (held) {
              later.add(() -> handler.onEvent(event));
            } else {
              handler.onEvent(event);
            }
          }

          @Override
          public void onGone(long compactedRevision) {
            handler.onGone(compactedRevision);
          }

          @Override
          public void onCaughtUp(long revision) {
            if (!held) {
              handler.onCaughtUp(revision);
            }
          }

          @Override
          public void onClosed(String reason) {
            handler.onClosed(reason);
          }
        });
  }
}
