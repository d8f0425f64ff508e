package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.FencingClient;
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
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.sim.ProcessEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One process's connection to the API, with the network's faults: while {@linkplain #cut cut} (a
 * partition) every call fails with {@code Unavailable} and open watches are closed, so the caller's
 * informers re-list once it heals; otherwise a call fails with probability {@code failRate} — half
 * of those <em>after</em> the write committed (a time-out the caller cannot tell from a failure),
 * and of a write that failed before it committed, half is still <em>in flight</em>: it lands up to
 * 5 s later, after the caller gave up and may have acted on that (issue 49: an etcd client's retry
 * through a minority member's "no leader" committed a task after its workload was gone). {@link
 * #holdInFlight} holds one kind's writes so, until {@link #landHeld}, for a scenario.
 */
final class FlakyApi implements FencingClient {
  /** The connection's state, shared by this client and the fenced views made from it. */
  private static final class Link {
    double failRate;
    boolean cut;
    final List<Runnable> openWatches = new ArrayList<>();
    Set<String> heldKinds = Set.of();
    final List<Runnable> held = new ArrayList<>();
  }

  private final ApiClient api;
  private final Env env;
  private final String who;
  private final Link link;

  FlakyApi(ApiClient api, Env env, String who) {
    this(api, env, who, new Link());
  }

  private FlakyApi(ApiClient api, Env env, String who, Link link) {
    this.api = api;
    this.env = env;
    this.who = who;
    this.link = link;
  }

  /**
   * The same connection, with writes fenced in the store as the registry fences them: a replica's
   * controllers write through this, as {@code qm server}'s do through the registry.
   */
  @Override
  public ApiClient fencedBy(String key, long revision) {
    if (!(api instanceof FencingClient fencing)) {
      throw new IllegalStateException(who + ": the API beneath cannot fence");
    }
    return new FlakyApi(fencing.fencedBy(key, revision), env, who, link);
  }

  /** The same connection, writing as {@link #fencedBy} does without the fence (a naive variant). */
  @Override
  public ApiClient unfencedBy(String key, long revision) {
    if (!(api instanceof FencingClient fencing)) {
      throw new IllegalStateException(who + ": the API beneath cannot stamp a term");
    }
    return new FlakyApi(fencing.unfencedBy(key, revision), env, who, link);
  }

  /**
   * Hands what arrives over a watch to the process: at once, or after its pause when it is paused
   * (the connection stays open; the data waits in its buffers).
   */
  private void deliver(Runnable delivery) {
    if (env instanceof ProcessEnv process) {
      process.deliver(delivery);
    } else {
      delivery.run();
    }
  }

  void failRate(double rate) {
    link.failRate = rate;
  }

  /** Cuts or heals the connection; cutting closes every open watch. */
  void cut(boolean cut) {
    link.cut = cut;
    if (cut) {
      var closing = List.copyOf(link.openWatches);
      link.openWatches.clear();
      closing.forEach(Runnable::run);
    }
  }

  boolean isCut() {
    return link.cut;
  }

  private void before() {
    double failRate = link.failRate;
    if (link.cut) {
      throw new ApiException(Reason.Unavailable, who + ": partitioned from the server (simulated)");
    }
    if (failRate > 0 && env.random().nextDouble() < failRate / 2) {
      throw new ApiException(
          Reason.Unavailable, who + ": request failed before the server saw it (simulated)");
    }
  }

  /**
   * From now on, every write of an object of {@code kind} through this connection is taken in
   * flight and answered {@code Unavailable}; it lands when {@link #landHeld} is called.
   */
  void holdInFlight(Kind<?> kind) {
    link.heldKinds = Set.of(kind.name());
  }

  /** How many writes {@link #holdInFlight} holds now. */
  int heldInFlight() {
    return link.held.size();
  }

  /**
   * Lands every held write in the order it was made (each judged by the store then); stops holding.
   */
  void landHeld() {
    link.heldKinds = Set.of();
    var landing = List.copyOf(link.held);
    link.held.clear();
    landing.forEach(Runnable::run);
  }

  private <R> R write(String kind, Supplier<R> call) {
    if (link.cut) {
      throw new ApiException(Reason.Unavailable, who + ": partitioned from the server (simulated)");
    }
    if (link.heldKinds.contains(kind)) {
      link.held.add(() -> landLate(call));
      throw new ApiException(
          Reason.Unavailable, who + ": timed out, the write still in flight (simulated, held)");
    }
    double failRate = link.failRate;
    if (failRate > 0) {
      double draw = env.random().nextDouble();
      if (draw < failRate / 4) {
        throw new ApiException(
            Reason.Unavailable, who + ": request failed before the server saw it (simulated)");
      }
      if (draw < failRate / 2) {
        // One draw decides both: the same random sequence as before writes could land late.
        var delay = Duration.ofMillis(Math.round(5_000 * (draw - failRate / 4) / (failRate / 4)));
        env.schedule(delay, () -> landLate(call));
        throw new ApiException(
            Reason.Unavailable, who + ": timed out, the write still in flight (simulated)");
      }
    }
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

  /** A write that lands after its caller was told it failed: judged by the store as it is then. */
  private static void landLate(Supplier<?> call) {
    try {
      call.get();
    } catch (ApiException e) {
      // refused when it landed: nothing of it is applied, and nobody waits for the answer
    }
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    return write(Kinds.of(object).name(), () -> api.create(object));
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    return write(Kinds.of(object).name(), () -> api.update(object));
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    return write(Kinds.of(object).name(), () -> api.updateStatus(object));
  }

  @Override
  public int writesPerCommit() {
    return api.writesPerCommit();
  }

  @Override
  public List<ApiObject> commit(List<Write> writes) {
    var kind = writes.isEmpty() ? "" : Kinds.of(writes.getFirst().object()).name();
    return write(kind, () -> api.commit(writes));
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    return write(kind.name(), () -> api.delete(kind, name));
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
                deliver(
                    () -> {
                      if (!closed[0]) {
                        handler.onEvent(event);
                      }
                    });
              }

              @Override
              public void onGone(long compactedRevision) {
                deliver(
                    () -> {
                      if (!closed[0]) {
                        handler.onGone(compactedRevision);
                      }
                    });
              }

              @Override
              public void onCaughtUp(long revision) {
                deliver(
                    () -> {
                      if (!closed[0]) {
                        handler.onCaughtUp(revision);
                      }
                    });
              }

              @Override
              public void onClosed(String reason) {
                deliver(
                    () -> {
                      if (!closed[0]) {
                        handler.onClosed(reason);
                      }
                    });
              }
            });
    Runnable sever =
        () -> {
          if (!closed[0]) {
            closed[0] = true;
            inner.close();
            deliver(() -> handler.onClosed(who + ": connection lost (simulated partition)"));
          }
        };
    link.openWatches.add(sever);
    return () -> {
      closed[0] = true;
      link.openWatches.remove(sever);
      inner.close();
    };
  }
}
