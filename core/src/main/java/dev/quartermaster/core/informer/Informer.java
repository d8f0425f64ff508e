package dev.quartermaster.core.informer;

import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.Env.Cancellable;
import dev.quartermaster.core.env.SerialExecutor;
import dev.quartermaster.core.queue.ExponentialBackoff;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Mirrors a {@link ListerWatcher} into an indexed cache and tells handlers what changed.
 *
 * <p>It lists, fills the cache, and watches from the list's revision, applying events in order. An
 * event at or below the revision the cache holds for its key, or below the revision the cache has
 * caught up to, is a re-delivery and is ignored. When the watch reports its history compacted it
 * lists again at once; when the watch closes, or a list or watch fails, it lists again after an
 * exponential backoff with jitter. A re-list replaces the cache and reports the difference: a
 * delete for each key that vanished, an add for each new key, an update for each key whose revision
 * changed. With an {@linkplain Builder#identity identity}, a key whose object is another one than
 * the cache held (deleted and made again under its name while the informer did not look: a relist
 * after a pause or a lost watch) is that delete and that add, never an update: a handler that lets
 * go of what it kept for an object on its delete must hear it whichever way the cache learned.
 *
 * <p>All work happens in {@link Env} tasks, one at a time (a {@link SerialExecutor}), so under a
 * deterministic env the informer is single-threaded and replayable. The cache can be read from any
 * thread.
 */
public final class Informer<T> {

  private static final System.Logger LOG = System.getLogger(Informer.class.getName());

  private final Env env;
  private final ListerWatcher<T> source;
  private final Function<? super T, String> keyOf;
  private final ToLongFunction<? super T> revisionOf;
  private final Optional<Function<? super T, String>> identityOf;
  private final Indexer<T> cache;
  private final Duration retryBase;
  private final Duration retryCap;
  private final SerialExecutor serial;
  private final List<EventHandler<T>> handlers = new CopyOnWriteArrayList<>();
  private final RevisionWatermark synced = new RevisionWatermark();
  private volatile boolean hasSynced;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile boolean stopped;

  // Touched only by tasks on the serial executor.
  private int generation;
  private Optional<Subscription> subscription = Optional.empty();
  private Optional<Cancellable> retry = Optional.empty();
  private int failures;

  private Informer(Builder<T> b) {
    this.env = b.env;
    this.source = b.source;
    this.keyOf = b.keyOf;
    this.revisionOf = b.revisionOf;
    this.identityOf = b.identityOf;
    this.cache = new Indexer<>(b.keyOf, b.indexes, b.tallies);
    this.retryBase = b.retryBase;
    this.retryCap = b.retryCap;
    this.serial = new SerialExecutor(b.env);
  }

  /** Starts building an informer over {@code source}. */
  public static <T> Builder<T> builder(
      Env env,
      ListerWatcher<T> source,
      Function<? super T, String> keyOf,
      ToLongFunction<? super T> revisionOf) {
    return new Builder<>(env, source, keyOf, revisionOf);
  }

  /** Begins the first list, in an env task. Call once. */
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("informer already started");
    }
    serial.submit(this::relist);
  }

  /** Stops watching and retrying; the cache keeps its last contents. */
  public void stop() {
    stopped = true;
    serial.submit(
        () -> {
          generation++;
          subscription.ifPresent(Subscription::cancel);
          subscription = Optional.empty();
          retry.ifPresent(Cancellable::cancel);
          retry = Optional.empty();
        });
  }

  /** The cache; readable from any thread. */
  public Indexer<T> cache() {
    return cache;
  }

  /** Whether the cache has been filled by at least one list. */
  public boolean hasSynced() {
    return hasSynced;
  }

  /**
   * The revision the cache has caught up to: it reflects every change up to it. Never decreases.
   */
  public long syncedRevision() {
    return synced.get();
  }

  /**
   * Adds a handler. Objects already cached are replayed to it as adds first, in the informer's
   * order, so it misses nothing whenever it is added.
   */
  public void addHandler(EventHandler<T> handler) {
    Objects.requireNonNull(handler, "handler");
    serial.submit(
        () -> {
          handlers.add(handler);
          for (T object : cache.list()) {
            notify(handler, h -> h.onAdd(object));
          }
        });
  }

  /**
   * Runs {@code callback} once the cache has caught up to {@code revision} — at once, in the
   * caller, if it already has; otherwise in the informer's task that gets it there. Lets a
   * controller that wrote at {@code revision} wait to read its own write. Keep the callback short.
   */
  public Cancellable whenCaughtUp(long revision, Runnable callback) {
    return synced.whenReached(revision, callback);
  }

  // ---- serial tasks ----

  private void relist() {
    retry = Optional.empty();
    if (stopped) {
      return;
    }
    generation++; // whatever the old watch still sends is now stale
    subscription.ifPresent(Subscription::cancel);
    subscription = Optional.empty();

    Listing<T> listing;
    try {
      listing = source.list();
    } catch (Exception e) {
      retryLater("list failed", e);
      return;
    }
    if (listing.revision() < synced.get()) {
      // A lagging replica's list would move the cache back in time: wait for one that caught up.
      retryLater(
          "list at revision " + listing.revision() + " is behind the cache at " + synced.get(),
          null);
      return;
    }
    replace(listing);
    failures = 0;
    int watchGeneration = generation;
    try {
      subscription = Optional.of(source.watch(listing.revision(), new Sink(watchGeneration)));
    } catch (Exception e) {
      retryLater("watch failed", e);
    }
  }

  private void replace(Listing<T> listing) {
    Map<String, T> fresh = new LinkedHashMap<>();
    for (T item : listing.items()) {
      fresh.put(keyOf.apply(item), item);
    }
    List<Runnable> changes = new ArrayList<>();
    for (Map.Entry<String, Indexer.Entry<T>> old : cache.entries().entrySet()) {
      if (!fresh.containsKey(old.getKey())) {
        cache.remove(old.getKey());
        T gone = old.getValue().object();
        changes.add(() -> tellHandlers(h -> h.onDelete(gone)));
      }
    }
    for (T item : fresh.values()) {
      String key = keyOf.apply(item);
      long revision = revisionOf.applyAsLong(item);
      OptionalLong held = cache.revisionOf(key);
      if (held.isPresent() && held.getAsLong() == revision) {
        continue; // unchanged
      }
      changes.add(upsert(item, revision));
    }
    changes.forEach(Runnable::run);
    synced.raise(listing.revision());
    hasSynced = true;
  }

  private void apply(WatchEvent<T> event) {
    long revision = event.revision();
    if (revision < synced.get()) {
      return; // re-delivered: the cache already reflects everything below the synced revision
    }
    T object = event.object();
    String key = keyOf.apply(object);
    OptionalLong held = cache.revisionOf(key);
    if (held.isPresent() && held.getAsLong() >= revision) {
      return; // re-delivered
    }
    Optional<Runnable> change =
        switch (event) {
          case WatchEvent.Added<T> _ -> Optional.of(upsert(object, revision));
          case WatchEvent.Modified<T> _ -> Optional.of(upsert(object, revision));
          case WatchEvent.Deleted<T> _ ->
              cache.remove(key).map(old -> () -> tellHandlers(h -> h.onDelete(object)));
        };
    change.ifPresent(Runnable::run);
    synced.raise(revision);
  }

  /**
   * Puts {@code object} in the cache; what to tell handlers. An add for a key we hold is an update,
   * an update for a key we lack is an add, and an update that replaces one object by another (by
   * identity) is the old one's delete and the new one's add.
   */
  private Runnable upsert(T object, long revision) {
    return cache
        .put(object, revision)
        .map(Indexer.Entry::object)
        .<Runnable>map(
            old ->
                replaced(old, object)
                    ? () -> {
                      tellHandlers(h -> h.onDelete(old));
                      tellHandlers(h -> h.onAdd(object));
                    }
                    : () -> tellHandlers(h -> h.onUpdate(old, object)))
        .orElse(() -> tellHandlers(h -> h.onAdd(object)));
  }

  private boolean replaced(T old, T object) {
    return identityOf.map(id -> !id.apply(old).equals(id.apply(object))).orElse(false);
  }

  private void watchClosed(String reason) {
    generation++;
    subscription = Optional.empty();
    retryLater("watch closed: " + reason, null);
  }

  private void retryLater(String why, Exception cause) {
    if (cause instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return;
    }
    if (stopped) {
      return;
    }
    Duration backoff = ExponentialBackoff.delay(retryBase, retryCap, failures++);
    // Up to as much again, drawn from the env, so replicas don't re-list in lockstep.
    Duration delay = backoff.plusNanos(env.random().nextLong(backoff.toNanos() + 1));
    // A server that cannot be reached is expected (a restart, a failover): its message says enough;
    // the trace is for DEBUG.
    var because = cause == null ? "" : ": " + cause.getMessage();
    LOG.log(Level.WARNING, () -> why + because + "; listing again in " + delay.toMillis() + " ms");
    if (cause != null) {
      LOG.log(Level.DEBUG, "why the list failed", cause);
    }
    retry = Optional.of(env.schedule(delay, () -> serial.submit(this::relist)));
  }

  private void tellHandlers(Consumer<EventHandler<T>> call) {
    for (EventHandler<T> handler : handlers) {
      notify(handler, call);
    }
  }

  private void notify(EventHandler<T> handler, Consumer<EventHandler<T>> call) {
    try {
      call.accept(handler);
    } catch (RuntimeException e) {
      // One faulty handler must not stop the cache or the other handlers.
      LOG.log(Level.ERROR, "informer event handler failed", e);
    }
  }

  /** Routes one watch's callbacks onto the serial executor, dropping them once it is stale. */
  private final class Sink implements WatchSink<T> {
    private final int watchGeneration;

    /**
     * The bookmarks queued since the last event and not yet taken, which a new bookmark joins
     * instead of queueing a task of its own: a node agent's informer is told of every change of the
     * cluster and keeps few, so most of what it receives is bookmarks in a row. Only the watch
     * thread (calls to a sink never overlap) reads and replaces it.
     */
    private Bookmarks open;

    Sink(int watchGeneration) {
      this.watchGeneration = watchGeneration;
    }

    @Override
    public void event(WatchEvent<T> event) {
      Objects.requireNonNull(event, "event");
      open = null; // a bookmark after this event must not be raised before it is applied
      whileCurrent(() -> apply(event));
    }

    @Override
    public void bookmark(long revision) {
      var joined = open;
      if (joined != null && joined.join(revision)) {
        return;
      }
      var queued = new Bookmarks(revision);
      open = queued;
      whileCurrent(() -> synced.raise(queued.take()));
    }

    @Override
    public void compacted() {
      whileCurrent(Informer.this::relist);
    }

    @Override
    public void closed(String reason) {
      whileCurrent(() -> watchClosed(reason));
    }

    private void whileCurrent(Runnable task) {
      serial.submit(
          () -> {
            if (watchGeneration == generation && !stopped) {
              task.run();
            }
          });
    }
  }

  /** Bookmarks in a row, raised as one: the highest, once the task queued for the first runs. */
  private static final class Bookmarks {
    private long highest;
    private boolean taken;

    Bookmarks(long revision) {
      this.highest = revision;
    }

    /** Adds {@code revision} unless the queued task has taken the batch already. */
    synchronized boolean join(long revision) {
      if (taken) {
        return false;
      }
      highest = Math.max(highest, revision);
      return true;
    }

    synchronized long take() {
      taken = true;
      return highest;
    }
  }

  /** Configures an {@link Informer}. */
  public static final class Builder<T> {
    private final Env env;
    private final ListerWatcher<T> source;
    private final Function<? super T, String> keyOf;
    private final ToLongFunction<? super T> revisionOf;
    private Optional<Function<? super T, String>> identityOf = Optional.empty();
    private final Map<String, Function<? super T, ? extends Collection<String>>> indexes =
        new LinkedHashMap<>();
    private final Map<String, Tally<? super T>> tallies = new LinkedHashMap<>();
    private Duration retryBase = Duration.ofMillis(800);
    private Duration retryCap = Duration.ofSeconds(30);

    private Builder(
        Env env,
        ListerWatcher<T> source,
        Function<? super T, String> keyOf,
        ToLongFunction<? super T> revisionOf) {
      this.env = Objects.requireNonNull(env, "env");
      this.source = Objects.requireNonNull(source, "source");
      this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
      this.revisionOf = Objects.requireNonNull(revisionOf, "revisionOf");
    }

    /**
     * Adds a secondary index: {@code function} maps an object to the values it is found under. It
     * must give the same values for the same object every time.
     */
    public Builder<T> index(
        String name, Function<? super T, ? extends Collection<String>> function) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(function, "function");
      if (indexes.putIfAbsent(name, function) != null) {
        throw new IllegalArgumentException("index '" + name + "' defined twice");
      }
      return this;
    }

    /**
     * What tells one object from another made under the same key (a uid): an object replaced unseen
     * reaches the handlers as a delete and an add. Without it a key is its identity.
     */
    public Builder<T> identity(Function<? super T, String> identity) {
      this.identityOf = Optional.of(Objects.requireNonNull(identity, "identity"));
      return this;
    }

    /** Adds a counting index ({@link Tally}), read by {@link Indexer#tally}. */
    public Builder<T> tally(String name, Tally<? super T> tally) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(tally, "tally");
      if (tallies.putIfAbsent(name, tally) != null) {
        throw new IllegalArgumentException("tally '" + name + "' defined twice");
      }
      return this;
    }

    /**
     * Backoff between failed lists or closed watches: starts at {@code base}, doubles to {@code
     * cap}.
     */
    public Builder<T> retryBackoff(Duration base, Duration cap) {
      if (base.isNegative() || cap.compareTo(base) < 0) {
        throw new IllegalArgumentException("need 0 <= base <= cap, got " + base + ", " + cap);
      }
      this.retryBase = base;
      this.retryCap = cap;
      return this;
    }

    /** The informer; call {@link Informer#start} to begin. */
    public Informer<T> build() {
      return new Informer<>(this);
    }
  }
}
