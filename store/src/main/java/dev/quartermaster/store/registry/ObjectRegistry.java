package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.api.validation.ObjectValidator;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.Txn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The API's semantics over a revisioned store: validation, server-set metadata (uid, generation,
 * createdAt), compare-and-set on {@code metadata.revision}, graceful delete with finalizers, and
 * watches translated into object events.
 *
 * <p>Every write is one store transaction that compares the key's revision, so a write never
 * half-applies and two writers racing on one object cannot both win. Rules that span objects
 * ({@link AllocationGuard}: no device held by two live claims) add the revisions of what they read
 * to that transaction, so they hold whoever writes.
 */
public final class ObjectRegistry implements FencingClient {
  private final Store store;
  private final Env env;
  private final StoredObjects stored = new StoredObjects();
  private final WriteRules rules;
  /** Shared by all watches, so that an event fanned out to many watchers is decoded once. */
  private final WatchDecodes watchDecodes = new WatchDecodes();

  public ObjectRegistry(Store store, Env env) {
    this.store = store;
    this.env = env;
    this.rules = WriteRules.all(List.of(new AllocationGuard(store, stored), new SpecDecisionGuard(store, stored),
        new VolumeGuard(), new DomainGuard()));
  }

  private ObjectRegistry(Store store, Env env, WriteRules rules) {
    this.store = store;
    this.env = env;
    this.rules = rules;
  }

  /**
   * A registry that takes any valid write, without the rules that span objects (I1 in the store).
   * Only for tests that show what those rules prevent; never serve it.
   */
  public static ObjectRegistry withoutCrossObjectRules(Store store, Env env) {
    return new ObjectRegistry(store, env, WriteRules.NONE);
  }

  /** This registry with its rules, writing through a {@link FencedStore}. */
  @Override
  public ApiClient fencedBy(String key, long revision) {
    // The rules only read (the same store either way) and name what to compare: they carry over.
    return new ObjectRegistry(new FencedStore(store, key, revision), env, rules);
  }

  /** The store underneath, for the server's health and metrics. */
  public Store store() {
    return store;
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    requireName(name);
    // A recently changed object was decoded already for the watches: the same immutable object.
    return store.get(StoredObjects.key(kind, name)).map(kv -> watchDecodes.decoded(kind, kv.key(), kv.modRevision(), kv.value())
        .orElseGet(() -> stored.decode(kind, kv)));
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    var range = store.range(StoredObjects.prefix(kind), 0);
    var items = range.kvs().stream()
        .map(kv -> stored.decode(kind, kv))
        .filter(o -> selector.matches(o.metadata().labels()))
        .toList();
    return new ObjectList<>(items, range.revision());
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    ObjectValidator.require(object);
    var kind = Kinds.of(object);
    var m = object.metadata();
    var meta = new ObjectMeta(m.name(), newUid(), 0, 1, m.labels(), Optional.of(env.now()), Optional.empty(),
        ServerFinalizers.atCreate(object), m.owner());
    var fresh = kind.cast(object.withMetadata(meta));
    var key = StoredObjects.key(kind, m.name());
    while (true) {
      var compares = new ArrayList<Compare>(rules.beforeCreate(fresh));
      compares.add(new Compare.ModRevision(key, 0));
      var result = store.txn(Txn.when(compares, List.of(new Op.Put(key, stored.encode(fresh)))));
      if (result.succeeded()) {
        return kind.cast(fresh.withMetadata(meta.withRevision(result.revision())));
      }
      if (store.get(key).isPresent()) {
        throw new ApiException(Reason.AlreadyExists, object.ref() + " already exists");
      }
      // Only something the rules read changed: they decide again.
    }
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    ObjectValidator.require(object);
    var kind = Kinds.of(object);
    var current = currentFor(object);
    var m = object.metadata();
    var c = current.metadata();
    if (c.isDeleting() && !c.finalizers().containsAll(m.finalizers())) {
      throw ApiException.invalid(object.ref(), List.of(new Violation("metadata.finalizers",
          "cannot add finalizers to an object that is being deleted")));
    }
    var specChanged = !current.spec().equals(object.spec());
    var meta = new ObjectMeta(c.name(), c.uid(), c.revision(), specChanged ? c.generation() + 1 : c.generation(),
        m.labels(), c.createdAt(), c.deletedAt(), m.finalizers(), m.owner());
    var next = kind.cast(object.withMetadata(meta).withStatusOf(current));
    return write(kind, current, next);
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    var kind = Kinds.of(object);
    var current = currentFor(object);
    var next = kind.cast(current.withStatusOf(object));
    return write(kind, current, next);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    requireName(name);
    while (true) {
      var current = get(kind, name).orElseThrow(() -> notFound(kind, name));
      var m = current.metadata();
      if (m.isDeleting()) {
        return new DeleteResult.Terminating<>(current);
      }
      var key = StoredObjects.key(kind, name);
      var compares = new ArrayList<Compare>(rules.beforeDelete(current));
      compares.add(new Compare.ModRevision(key, m.revision()));
      if (m.finalizers().isEmpty()) {
        var result = store.txn(Txn.when(compares, List.of(new Op.Delete(key))));
        if (result.succeeded()) {
          return new DeleteResult.Deleted<>(kind.cast(current.withMetadata(m.withRevision(result.revision()))));
        }
        continue; // changed under us: decide again on the new state
      }
      var marked = kind.cast(current.withMetadata(m.withDeletedAt(env.now())));
      var result = store.txn(Txn.when(compares, List.of(new Op.Put(key, stored.encode(marked)))));
      if (result.succeeded()) {
        return new DeleteResult.Terminating<>(kind.cast(marked.withMetadata(marked.metadata().withRevision(result.revision()))));
      }
    }
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, WatchHandler<T> handler) {
    // Said at once, before the call returns, so that an HTTP watch can answer 410 without waiting to
    // see what the store's watch thread reports; a compaction racing this check still arrives later.
    var compacted = store.compactedRevision();
    if (afterRevision < compacted) {
      handler.onGone(compacted);
      return () -> {};
    }
    var watch = store.watch(StoredObjects.prefix(kind), afterRevision, new ObjectWatchListener<>(kind, stored, watchDecodes, handler));
    return watch::close;
  }

  /** How many watch events were decoded, for tests of fan-out cost. */
  long watchDecodes() {
    return watchDecodes.decodes();
  }

  /**
   * Replaces {@code current} by {@code next} if the stored revision is still current's; a deleting
   * object whose last finalizer is gone is removed. When only something the rules read changed,
   * the rules decide again on the new state: the caller's compare-and-set still holds.
   */
  private <T extends ApiObject> T write(Kind<T> kind, T current, T next) {
    var m = next.metadata();
    var expected = current.metadata().revision();
    var key = StoredObjects.key(kind, m.name());
    var finished = m.isDeleting() && m.finalizers().isEmpty();
    var op = finished ? new Op.Delete(key) : new Op.Put(key, stored.encode(next));
    while (true) {
      var compares = new ArrayList<Compare>(finished ? rules.beforeDelete(current) : rules.beforeWrite(current, next));
      compares.add(new Compare.ModRevision(key, expected));
      var result = store.txn(Txn.when(compares, List.of(op)));
      if (result.succeeded()) {
        return kind.cast(next.withMetadata(m.withRevision(result.revision())));
      }
      if (store.get(key).map(kv -> kv.modRevision()).orElse(0L) != expected) {
        throw conflict(next, expected);
      }
    }
  }

  private <T extends ApiObject> T currentFor(T object) {
    var kind = Kinds.of(object);
    var m = object.metadata();
    var current = get(kind, m.name()).orElseThrow(() -> notFound(kind, m.name()));
    if (m.revision() == 0) {
      throw ApiException.invalid(object.ref(), List.of(new Violation("metadata.revision",
          "required for an update: read the object and send back the revision you read")));
    }
    if (!m.uid().isEmpty() && !m.uid().equals(current.metadata().uid())) {
      throw new ApiException(Reason.Conflict, object.ref() + " was deleted and re-created (uid "
          + current.metadata().uid() + ", yours " + m.uid() + ")");
    }
    if (m.revision() != current.metadata().revision()) {
      throw conflict(object, m.revision());
    }
    return current;
  }

  private ApiException conflict(ApiObject object, long yours) {
    return new ApiException(Reason.Conflict, object.ref() + " was modified since revision " + yours
        + "; read it again and retry");
  }

  private static ApiException notFound(Kind<?> kind, String name) {
    return new ApiException(Reason.NotFound, kind.singular() + "/" + name + " not found");
  }

  private static void requireName(String name) {
    if (!Names.isDnsLabel(name)) {
      throw ApiException.invalid("name '" + name + "'", List.of(new Violation("metadata.name", Names.DNS_LABEL_RULE)));
    }
  }

  private String newUid() {
    var r = env.random();
    return new UUID((r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L).toString();
  }

}
