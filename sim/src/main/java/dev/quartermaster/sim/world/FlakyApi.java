package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.env.Env;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One process's connection to the API, with the network's faults: while {@linkplain #cut cut} (a
 * partition) every call fails with {@code Unavailable} and open watches are closed, so the caller's
 * informers re-list once it heals; otherwise a call fails with probability {@code failRate} — half
 * of those <em>after</em> the write committed (a time-out the caller cannot tell from a failure).
 */
final class FlakyApi implements ApiClient {
  private final ApiClient api;
  private final Env env;
  private final String who;
  private double failRate;
  private boolean cut;
  private final List<Runnable> openWatches = new ArrayList<>();

  FlakyApi(ApiClient api, Env env, String who) {
    this.api = api;
    this.env = env;
    this.who = who;
  }

  void failRate(double rate) {
    this.failRate = rate;
  }

  /** Cuts or heals the connection; cutting closes every open watch. */
  void cut(boolean cut) {
    this.cut = cut;
    if (cut) {
      var closing = List.copyOf(openWatches);
      openWatches.clear();
      closing.forEach(Runnable::run);
    }
  }

  boolean isCut() {
    return cut;
  }

  private void before() {
    if (cut) {
      throw new ApiException(Reason.Unavailable, who + ": partitioned from the server (simulated)");
    }
    if (failRate > 0 && env.random().nextDouble() < failRate / 2) {
      throw new ApiException(
          Reason.Unavailable, who + ": request failed before the server saw it (simulated)");
    }
  }

  private <R> R write(Supplier<R> call) {
    before();
    var result = call.get();
    if (failRate > 0 && env.random().nextDouble() < failRate / 2) {
      throw new ApiException(
          Reason.Unavailable, who + ": timed out after the write committed (simulated)");
    }
    return result;
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    before();
    return api.get(kind, name);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    before();
    return api.list(kind, selector);
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    return write(() -> api.create(object));
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    return write(() -> api.update(object));
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    return write(() -> api.updateStatus(object));
  }

  @Override
  public int writesPerCommit() {
    return api.writesPerCommit();
  }

  @Override
  public List<ApiObject> commit(List<Write> writes) {
    return write(() -> api.commit(writes));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    return write(() -> api.delete(kind, name));
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    before();
    var closed = new boolean[1];
    var inner =
        api.watch(
            kind,
            afterRevision,
            scope,
            new WatchHandler<T>() {
              @Override
              public void onEvent(WatchEvent<T> event) {
                if (!closed[0]) {
                  handler.onEvent(event);
                }
              }

              @Override
              public void onGone(long compactedRevision) {
                if (!closed[0]) {
                  handler.onGone(compactedRevision);
                }
              }

              @Override
              public void onCaughtUp(long revision) {
                if (!closed[0]) {
                  handler.onCaughtUp(revision);
                }
              }

              @Override
              public void onClosed(String reason) {
                if (!closed[0]) {
                  handler.onClosed(reason);
                }
              }
            });
    Runnable sever =
        () -> {
          if (!closed[0]) {
            closed[0] = true;
            inner.close();
            handler.onClosed(who + ": connection lost (simulated partition)");
          }
        };
    openWatches.add(sever);
    return () -> {
      closed[0] = true;
      openWatches.remove(sever);
      inner.close();
    };
  }
}
