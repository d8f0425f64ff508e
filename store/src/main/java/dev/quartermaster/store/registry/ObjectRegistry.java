package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.ContinueToken;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ListPage;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
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
import dev.quartermaster.store.CompactedException;
import dev.quartermaster.store.FutureRevisionException;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.Range;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreLimitException;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import dev.quartermaster.store.TxnResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

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

  /** The store as it is now, for reads that may hold the value already ({@link Reads#stillAt}). */
  private final Reads live;

  private final Env env;
  private final StoredObjects stored;
  private final WriteRules rules;

  /** Shared by all watches, so that an event fanned out to many watchers is decoded once. */
  private final WatchDecodes watchDecodes;

  public ObjectRegistry(Store store, Env env) {
    this(store, env, new WatchDecodes());
  }

  private ObjectRegistry(Store store, Env env, WatchDecodes watchDecodes) {
    this(store, env, new StoredObjects(watchDecodes), watchDecodes);
  }

  private ObjectRegistry(Store store, Env env, StoredObjects stored, WatchDecodes watchDecodes) {
    this(store, env, stored, WriteRules.all(guards(stored)), watchDecodes);
  }

  /** Every rule across objects the store judges writes by. */
  private static List<WriteRules> guards(StoredObjects stored) {
    return guards(stored, new NodeDeviceUse(stored));
  }

  private static List<WriteRules> guards(StoredObjects stored, NodeDeviceUse uses) {
    return List.of(
        new AllocationGuard(stored, uses),
        new GangReservationGuard(stored, uses),
        new SpecDecisionGuard(stored),
        new VolumeGuard(stored),
        new NodeHoldGuard(stored),
        new MigModeGuard(stored),
        new TaskClaimGuard(stored),
        new OwnerGuard(stored),
        new DomainGuard(),
        new TaskPhaseGuard(),
        new QuotaGuard(stored));
  }

  private ObjectRegistry(
      Store store, Env env, StoredObjects stored, WriteRules rules, WatchDecodes watchDecodes) {
    this.store = store;
    this.live = Reads.of(store);
    this.env = env;
    this.stored = stored;
    this.rules = rules;
    this.watchDecodes = watchDecodes;
  }

  /**
   * A registry that takes any valid write, without the rules that span objects (I1 in the store).
   * Only for tests that show what those rules prevent; never serve it.
   */
  public static ObjectRegistry withoutCrossObjectRules(Store store, Env env) {
    var watchDecodes = new WatchDecodes();
    return new ObjectRegistry(
        store, env, new StoredObjects(watchDecodes), WriteRules.NONE, watchDecodes);
  }

  /**
   * A registry with every rule but the quota guard (Q1 in the store): an admitter's check is then
   * only its own, outside the write's transaction. Only for tests that show what that rule
   * prevents; never serve it.
   */
  public static ObjectRegistry withoutQuotaGuard(Store store, Env env) {
    return withoutGuard(store, env, QuotaGuard.class);
  }

  /**
   * A registry with every rule but the owner guard: an object made for an owner that is gone lands.
   * Only for tests that show what that rule prevents; never serve it.
   */
  public static ObjectRegistry withoutOwnerGuard(Store store, Env env) {
    return withoutGuard(store, env, OwnerGuard.class);
  }

  private static ObjectRegistry withoutGuard(
      Store store, Env env, Class<? extends WriteRules> left) {
    var watchDecodes = new WatchDecodes();
    var stored = new StoredObjects(watchDecodes);
    var rules = guards(stored).stream().filter(r -> !left.isInstance(r)).toList();
    return new ObjectRegistry(store, env, stored, WriteRules.all(rules), watchDecodes);
  }

  /**
   * A registry with every rule, but one that judges each device as its own, blind to the shared
   * counters slices declare (I1 over MIG slices in the store): a placement that ignores counters
   * then lands. Only for tests that show what that judgement prevents; never serve it.
   */
  public static ObjectRegistry withoutSharedCounters(Store store, Env env) {
    var watchDecodes = new WatchDecodes();
    var stored = new StoredObjects(watchDecodes);
    return new ObjectRegistry(
        store,
        env,
        stored,
        WriteRules.all(guards(stored, new NodeDeviceUse(stored, false))),
        watchDecodes);
  }

  /** This registry with its rules, writing through a {@link FencedStore}. */
  @Override
  public ApiClient fencedBy(String key, long revision) {
    // The rules only read (the same store either way) and name what to compare: they carry over.
    // The
    // watches' decodes too: what the fenced writer puts is seeded for the watches of this registry.
    return new ObjectRegistry(
        new FencedStore(store, key, revision), env, stored, rules, watchDecodes);
  }

  /**
   * This registry writing as {@link #fencedBy} does but without the fence's compare: each write
   * records the term and lands after it ended. Only for the naive variant that shows what fencing
   * prevents; never serve it.
   */
  @Override
  public ApiClient unfencedBy(String key, long revision) {
    return new ObjectRegistry(
        FencedStore.unfenced(store, key, revision), env, stored, rules, watchDecodes);
  }

  /** The store underneath, for the server's health and metrics. */
  public Store store() {
    return store;
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    requireName(kind, name);
    var key = StoredObjects.key(kind, name);
    var held = stored.ifStill(kind, key, live);
    if (held.isPresent()) {
      return Optional.of(held.get().object());
    }
    // A recently changed object was decoded already for the watches: the same immutable object.
    return store.get(key).map(kv -> stored.decode(kind, kv));
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    var range = store.range(StoredObjects.prefix(kind), 0);
    var items =
        range.kvs().stream()
            .map(kv -> stored.decode(kind, kv))
            .filter(o -> selector.matches(o.metadata().labels()))
            .toList();
    return new ObjectList<>(items, range.revision());
  }

  /**
   * A page of the store's range at one revision (the first page's): the store reads the page, not
   * the kind, and later pages see the objects as the first did, however the cluster moved since. A
   * token past the store's compaction is a {@link Reason#Gone}: the list starts again.
   */
  @Override
  public <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector, ListPage page) {
    var from = page.continueToken().map(ContinueToken::decode);
    var prefix = StoredObjects.prefix(kind);
    Range range;
    try {
      range =
          store.range(
              prefix,
              from.map(ContinueToken::revision).orElse(0L),
              from.map(f -> prefix + f.after()).orElse(""),
              page.limit() + 1);
    } catch (CompactedException e) {
      throw new ApiException(
          Reason.Gone,
          "the list's revision "
              + from.orElseThrow().revision()
              + " is compacted: list again from the first page");
    } catch (FutureRevisionException e) {
      throw new ApiException(
          Reason.BadRequest, "continue: a revision the store has not reached; not a token it gave");
    }
    long revision = from.map(ContinueToken::revision).orElse(range.revision());
    var kvs = range.kvs().subList(0, Math.min(page.limit(), range.kvs().size()));
    var items =
        kvs.stream()
            .map(kv -> stored.decode(kind, kv))
            .filter(o -> selector.matches(o.metadata().labels()))
            .toList();
    return new ObjectList<>(
        items,
        revision,
        range.kvs().size() > page.limit()
            ? Optional.of(
                new ContinueToken(revision, StoredObjects.nameOf(kvs.getLast().key())).encode())
            : Optional.empty());
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    return Kinds.of(object).cast(commit(List.of(new Write.Create(object))).getFirst());
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    return Kinds.of(object).cast(commit(List.of(new Write.Update(object))).getFirst());
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    return Kinds.of(object).cast(commit(List.of(new Write.UpdateStatus(object))).getFirst());
  }

  @Override
  public int writesPerCommit() {
    return store.writesPerTxn();
  }

  /**
   * One store transaction for the whole batch: each write's compare-and-set, the compares of what
   * the rules read, and every put or delete. The rules judge the writes in order, each against the
   * store as the earlier ones leave it ({@link BatchReads}); since each write keeps the rules given
   * the state before it, the batch keeps them. When the transaction fails only because something
   * the rules read changed, they judge again; a write whose own object changed fails as it would
   * alone, and nothing is applied.
   */
  @Override
  public List<ApiObject> commit(List<Write> writes) {
    var planned = PlannedWrite.all(writes, this::plan);
    var keys = planned.stream().map(PlannedWrite::key).collect(Collectors.toSet());
    var puts = planned.stream().filter(w -> !w.finished()).toList();
    // A watch that meets these puts before this thread is back takes the objects instead of
    // decoding them.
    puts.forEach(w -> watchDecodes.writing(w.key(), w.bytes(), w.next()));
    try {
      while (true) {
        var reads = new BatchReads(store);
        // Each compare once: many writes of a batch read the same object (every claim and record
        // the gang ledger), and etcd counts compares against its operations per transaction.
        var compares = new LinkedHashSet<Compare>();
        var ops = new ArrayList<Op>();
        for (var w : planned) {
          // A compare on a key the batch writes is that write's own compare-and-set already.
          w.judge(rules, reads).stream()
              .filter(c -> !keys.contains(c.key()))
              .forEach(compares::add);
          compares.add(new Compare.ModRevision(w.key(), w.expected()));
          ops.add(w.op());
          reads.wrote(w);
        }
        TxnResult result;
        try {
          var txn = Txn.when(List.copyOf(compares), ops);
          result =
              store.txn(planned.stream().allMatch(PlannedWrite::mayWait) ? txn.mayWait() : txn);
        } catch (StoreLimitException e) {
          // Too big for the store (etcd's operations per transaction): the caller's to split or
          // to report, as an answer it can match rather than an internal failure.
          throw new ApiException(
              Reason.PayloadTooLarge, "the store refuses this transaction: " + e.getMessage());
        }
        if (result.succeeded()) {
          var written = planned.stream().map(w -> w.written(result.revision())).toList();
          seedWatches(planned, written, result.revision());
          return written;
        }
        for (int i = 0; i < planned.size(); i++) {
          var w = planned.get(i);
          if (store.get(w.key()).map(kv -> kv.modRevision()).orElse(0L) != w.expected()) {
            // Which write lost, so that a caller batching several decisions can commit the others
            // again.
            throw planned.size() == 1 ? w.lost().get() : ApiException.ofWrite(w.lost().get(), i);
          }
        }
        // Only something the rules read changed: they decide again.
      }
    } finally {
      puts.forEach(w -> watchDecodes.notWriting(w.key(), w.bytes()));
    }
  }

  /** Hands each object put to the watches that will see it, so none of them decodes it. */
  private void seedWatches(List<PlannedWrite> planned, List<ApiObject> written, long revision) {
    for (int i = 0; i < planned.size(); i++) {
      var w = planned.get(i);
      if (w.finished()) {
        stored.deleted(w.key());
      } else {
        var object = written.get(i);
        var kind = Kinds.of(object);
        stored.wrote(new KeyValue(w.key(), w.bytes(), revision, revision, 1), object);
        watchDecodes.seed(
            kind,
            w.key(),
            revision,
            w.bytes(),
            object,
            () ->
                stored.decode(
                    kind, new KeyValue(w.key(), w.bytes(), revision, revision, 1), revision));
      }
    }
  }

  /**
   * What {@code write} would store, read against the object it replaces (which must be current).
   */
  private PlannedWrite plan(Write write) {
    var object = write.object();
    ObjectValidator.require(object);
    var kind = Kinds.of(object);
    var m = object.metadata();
    var key = StoredObjects.key(kind, m.name());
    return switch (write) {
      case Write.Create c -> {
        var meta =
            new ObjectMeta(
                m.name(),
                newUid(),
                0,
                1,
                m.labels(),
                Optional.of(env.now()),
                Optional.empty(),
                ServerFinalizers.atCreate(object),
                m.owner());
        var fresh = kind.cast(object.withMetadata(meta));
        yield new PlannedWrite(
            key,
            Optional.empty(),
            fresh,
            stored.encode(fresh),
            () -> new ApiException(Reason.AlreadyExists, object.ref() + " already exists"));
      }
      case Write.Update u -> {
        var current = currentFor(object);
        yield replacing(key, current, kind.cast(updated(current, object).withStatusOf(current)));
      }
      case Write.UpdateStatus u -> {
        var current = currentFor(object);
        yield replacing(key, current, kind.cast(current.withStatusOf(object)));
      }
      case Write.UpdateWithStatus u -> {
        var current = currentFor(object);
        yield replacing(key, current, kind.cast(updated(current, object)));
      }
    };
  }

  /**
   * {@code object}'s metadata (what a client may set of it) and spec over {@code current}; the
   * status is {@code object}'s.
   */
  private static ApiObject updated(ApiObject current, ApiObject object) {
    var c = current.metadata();
    var m = object.metadata();
    if (c.isDeleting() && !c.finalizers().containsAll(m.finalizers())) {
      throw ApiException.invalid(
          object.ref(),
          List.of(
              new Violation(
                  "metadata.finalizers",
                  "cannot add finalizers to an object that is being deleted")));
    }
    var specChanged = !current.spec().equals(object.spec());
    var meta =
        new ObjectMeta(
            c.name(),
            c.uid(),
            c.revision(),
            specChanged ? c.generation() + 1 : c.generation(),
            m.labels(),
            c.createdAt(),
            c.deletedAt(),
            m.finalizers(),
            m.owner());
    return object.withMetadata(meta);
  }

  /**
   * {@code current} replaced by {@code next}; a deleting object whose last finalizer is gone is
   * removed.
   */
  private PlannedWrite replacing(String key, ApiObject current, ApiObject next) {
    var m = next.metadata();
    var finished = m.isDeleting() && m.finalizers().isEmpty();
    return new PlannedWrite(
        key,
        Optional.of(current),
        next,
        finished ? new byte[0] : stored.encode(next),
        () -> conflict(next, current.metadata().revision()),
        finished);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    requireName(kind, name);
    while (true) {
      var current = get(kind, name).orElseThrow(() -> notFound(kind, name));
      var m = current.metadata();
      if (m.isDeleting()) {
        return new DeleteResult.Terminating<>(current);
      }
      var key = StoredObjects.key(kind, name);
      var compares = new ArrayList<Compare>(rules.beforeDelete(live, current));
      compares.add(new Compare.ModRevision(key, m.revision()));
      if (m.finalizers().isEmpty()) {
        var gone = new Op.Delete(key, WatchRoutes.of(Optional.of(current), Optional.empty()));
        var result = store.txn(Txn.when(compares, List.of(gone)));
        if (result.succeeded()) {
          stored.deleted(key);
          return new DeleteResult.Deleted<>(
              kind.cast(current.withMetadata(m.withRevision(result.revision()))));
        }
        continue; // changed under us: decide again on the new state
      }
      var marked = kind.cast(current.withMetadata(m.withDeletedAt(env.now())));
      var audience = WatchRoutes.of(Optional.of(current), Optional.of(marked));
      var result =
          store.txn(Txn.when(compares, List.of(new Op.Put(key, stored.encode(marked), audience))));
      if (result.succeeded()) {
        return new DeleteResult.Terminating<>(
            kind.cast(marked.withMetadata(marked.metadata().withRevision(result.revision()))));
      }
    }
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    // Said at once, before the call returns, so that an HTTP watch can answer 410 without waiting
    // to
    // see what the store's watch thread reports; a compaction racing this check still arrives
    // later.
    var compacted = store.compactedRevision();
    if (afterRevision < compacted) {
      handler.onGone(compacted);
      return () -> {};
    }
    var listener = new ObjectWatchListener<>(kind, stored, watchDecodes, handler);
    var prefix = StoredObjects.prefix(kind);
    var watch =
        WatchRoutes.of(scope)
            .map(route -> store.watch(prefix, route, afterRevision, listener))
            .orElseGet(() -> store.watch(prefix, afterRevision, listener));
    return watch::close;
  }

  /** How many watch events were decoded, for tests of fan-out cost. */
  long watchDecodes() {
    return watchDecodes.decodes();
  }

  /** How many reads of a stored object were answered without a decode, for tests of read cost. */
  long storedReuses() {
    return stored.reused();
  }

  /** How many objects are held decoded one entry per key, for tests of what a delete leaves. */
  int storedHeldPerKey() {
    return stored.heldPerKey();
  }

  /** How many written objects were handed to the watches without a decode, for the same tests. */
  long watchSeeds() {
    return watchDecodes.seeds();
  }

  private <T extends ApiObject> T currentFor(T object) {
    var kind = Kinds.of(object);
    var m = object.metadata();
    var current = get(kind, m.name()).orElseThrow(() -> notFound(kind, m.name()));
    if (m.revision() == 0) {
      throw ApiException.invalid(
          object.ref(),
          List.of(
              new Violation(
                  "metadata.revision",
                  "required for an update: read the object and send back the revision you read")));
    }
    if (!m.uid().isEmpty() && !m.uid().equals(current.metadata().uid())) {
      throw new ApiException(
          Reason.Conflict,
          object.ref()
              + " was deleted and re-created (uid "
              + current.metadata().uid()
              + ", yours "
              + m.uid()
              + ")");
    }
    if (m.revision() != current.metadata().revision()) {
      throw conflict(object, m.revision());
    }
    return current;
  }

  private ApiException conflict(ApiObject object, long yours) {
    return new ApiException(
        Reason.Conflict,
        object.ref() + " was modified since revision " + yours + "; read it again and retry");
  }

  private static ApiException notFound(Kind<?> kind, String name) {
    return new ApiException(Reason.NotFound, kind.singular() + "/" + name + " not found");
  }

  private static void requireName(Kind<?> kind, String name) {
    if (!Names.isObjectName(kind, name)) {
      throw ApiException.invalid(
          "name '" + name + "'",
          List.of(new Violation("metadata.name", Names.objectNameRule(kind))));
    }
  }

  private String newUid() {
    var r = env.random();
    return new UUID(
            (r.nextLong() & ~0xF000L) | 0x4000L,
            (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
        .toString();
  }
}
