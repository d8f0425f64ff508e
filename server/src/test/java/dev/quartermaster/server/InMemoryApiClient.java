package dev.quartermaster.server;

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
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.validation.ObjectValidator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A small, synchronous {@link ApiClient} for server tests: one lock, one revision counter, the full
 * event history (until {@link #compact}), and watch delivery on the writer's thread, in order.
 */
final class InMemoryApiClient implements ApiClient {
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final Map<Kind<?>, TreeMap<String, ApiObject>> objects = new java.util.HashMap<>();
  private final List<WatchEvent<?>> history = new ArrayList<>();
  private final List<Watcher<?>> watchers = new ArrayList<>();
  private long revision;
  private long compacted;
  private long writes;

  private record Watcher<T extends ApiObject>(Kind<T> kind, WatchHandler<T> handler) {
    void deliver(WatchEvent<?> event) {
      if (event.object().kind().equals(kind)) {
        handler.onEvent(new WatchEvent<>(event.type(), kind.cast(event.object())));
      }
    }
  }

  synchronized long revision() {
    return revision;
  }

  /** How many writes succeeded, to show that a refused request changed nothing. */
  synchronized long writes() {
    return writes;
  }

  /** Drops the history up to {@code upTo}; watches from before it get onGone. */
  synchronized void compact(long upTo) {
    compacted = upTo;
    history.removeIf(e -> e.revision() <= upTo);
  }

  /** Tells every open watch its history is gone, as a store does after an overflow. */
  synchronized void goneAll() {
    watchers.forEach(w -> w.handler().onGone(compacted));
    watchers.clear();
  }

  /** Waits (bounded) until exactly {@code count} watches are open; false if that never happened. */
  synchronized boolean awaitOpenWatches(int count) throws InterruptedException {
    var deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (watchers.size() != count) {
      var left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  @Override
  public synchronized <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return Optional.ofNullable(table(kind).get(name)).map(kind::cast);
  }

  @Override
  public synchronized <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector) {
    var items =
        table(kind).values().stream()
            .map(kind::cast)
            .filter(o -> selector.matches(o.metadata().labels()))
            .toList();
    return new ObjectList<>(items, revision);
  }

  @Override
  public synchronized <T extends ApiObject> T create(T object) {
    ObjectValidator.require(object);
    var kind = Kinds.of(object);
    var m = object.metadata();
    if (table(kind).containsKey(m.name())) {
      throw new ApiException(Reason.AlreadyExists, object.ref() + " already exists");
    }
    var meta =
        new ObjectMeta(
            m.name(),
            "uid-" + (revision + 1),
            revision + 1,
            1,
            m.labels(),
            Optional.of(CREATED),
            Optional.empty(),
            m.finalizers(),
            m.owner());
    return commit(WatchEvent.Type.ADDED, kind.cast(object.withMetadata(meta)));
  }

  @Override
  public synchronized <T extends ApiObject> T update(T object) {
    ObjectValidator.require(object);
    var kind = Kinds.of(object);
    var current = current(object);
    var c = current.metadata();
    var m = object.metadata();
    var generation = current.spec().equals(object.spec()) ? c.generation() : c.generation() + 1;
    var meta =
        new ObjectMeta(
            c.name(),
            c.uid(),
            revision + 1,
            generation,
            m.labels(),
            c.createdAt(),
            c.deletedAt(),
            m.finalizers(),
            m.owner());
    var next = kind.cast(object.withMetadata(meta).withStatusOf(current));
    if (meta.isDeleting() && meta.finalizers().isEmpty()) {
      return commit(WatchEvent.Type.DELETED, next);
    }
    return commit(WatchEvent.Type.MODIFIED, next);
  }

  @Override
  public synchronized <T extends ApiObject> T updateStatus(T object) {
    var kind = Kinds.of(object);
    var current = current(object);
    var next = kind.cast(current.withStatusOf(object));
    return commit(
        WatchEvent.Type.MODIFIED,
        kind.cast(next.withMetadata(next.metadata().withRevision(revision + 1))));
  }

  /** One write only: the double has no transactions to make a larger batch all-or-nothing. */
  @Override
  public synchronized List<ApiObject> commit(List<Write> writes) {
    if (writes.size() != 1) {
      throw new UnsupportedOperationException("InMemoryApiClient commits one write at a time");
    }
    return List.of(writes.getFirst().applyAlone(this));
  }

  @Override
  public synchronized <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    var current =
        get(kind, name)
            .orElseThrow(
                () ->
                    new ApiException(Reason.NotFound, kind.singular() + "/" + name + " not found"));
    var m = current.metadata();
    if (m.isDeleting()) {
      return new DeleteResult.Terminating<>(current);
    }
    if (m.finalizers().isEmpty()) {
      return new DeleteResult.Deleted<>(
          commit(
              WatchEvent.Type.DELETED,
              kind.cast(current.withMetadata(m.withRevision(revision + 1)))));
    }
    var marked =
        kind.cast(current.withMetadata(m.withDeletedAt(CREATED).withRevision(revision + 1)));
    return new DeleteResult.Terminating<>(commit(WatchEvent.Type.MODIFIED, marked));
  }

  @Override
  public synchronized <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    if (afterRevision < compacted) {
      handler.onGone(compacted);
      return () -> {};
    }
    var watcher = new Watcher<>(kind, handler);
    history.stream().filter(e -> e.revision() > afterRevision).forEach(watcher::deliver);
    handler.onCaughtUp(Math.max(revision, afterRevision)); // the replay is done, as a store says
    watchers.add(watcher);
    notifyAll();
    return () -> {
      synchronized (this) {
        watchers.remove(watcher);
        notifyAll();
      }
    };
  }

  private <T extends ApiObject> T commit(WatchEvent.Type type, T object) {
    revision++;
    writes++;
    var table = table(object.kind());
    if (type == WatchEvent.Type.DELETED) {
      table.remove(object.metadata().name());
    } else {
      table.put(object.metadata().name(), object);
    }
    var event = new WatchEvent<>(type, object);
    history.add(event);
    watchers.forEach(w -> w.deliver(event));
    return object;
  }

  private <T extends ApiObject> T current(T object) {
    var kind = Kinds.of(object);
    var m = object.metadata();
    var current =
        get(kind, m.name())
            .orElseThrow(
                () ->
                    new ApiException(
                        Reason.NotFound, kind.singular() + "/" + m.name() + " not found"));
    if (m.revision() != current.metadata().revision()) {
      throw new ApiException(
          Reason.Conflict, object.ref() + " was modified since revision " + m.revision());
    }
    return current;
  }

  private TreeMap<String, ApiObject> table(Kind<?> kind) {
    return objects.computeIfAbsent(kind, k -> new TreeMap<>());
  }
}
