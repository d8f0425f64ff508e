package dev.quartermaster.api.client;

import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.device.mps.MpsGpu;
import dev.quartermaster.api.device.timeslice.TimeSlicedGpu;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.api.table.ObjectTable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The cluster, as controllers, agents and the CLI see it. Implemented over HTTP and directly over a
 * store (in the store module), so the same controller code runs in the server, in {@code qm up} and
 * in the simulation.
 *
 * <p>Every failure is an {@link dev.quartermaster.api.error.ApiException} whose reason says what
 * happened: {@code NotFound}, {@code AlreadyExists}, {@code Conflict} (stale revision), {@code
 * Invalid} (with every violated rule), {@code Gone} (compacted watch).
 */
public interface ApiClient {

  <T extends ApiObject> Optional<T> get(Kind<T> kind, String name);

  /** All objects of {@code kind} matching {@code selector}, and the store revision of the read. */
  <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector);

  /**
   * One page of {@link #list(Kind, LabelSelector)}: at most {@code page.limit()} objects, in name
   * order, from where its continue token left off, every page at the first page's revision. A page
   * may hold fewer (a selector's misses) and still have a next one. This default reads the whole
   * list and cuts it, at the newest revision: a client with a store of its own pages there.
   */
  default <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector, ListPage page) {
    var from = page.continueToken().map(ContinueToken::decode);
    var all = list(kind, selector);
    var rest =
        all.items().stream()
            .filter(o -> from.map(f -> o.metadata().name().compareTo(f.after()) > 0).orElse(true))
            .sorted(java.util.Comparator.comparing(o -> o.metadata().name()))
            .toList();
    var items = rest.subList(0, Math.min(page.limit(), rest.size()));
    long revision = from.map(ContinueToken::revision).orElse(all.revision());
    return new ObjectList<>(
        items,
        revision,
        rest.size() > page.limit()
            ? java.util.Optional.of(
                new ContinueToken(Math.max(1, revision), items.getLast().metadata().name())
                    .encode())
            : java.util.Optional.empty());
  }

  default <T extends ApiObject> ObjectList<T> list(Kind<T> kind) {
    return list(kind, LabelSelector.ALL);
  }

  /**
   * {@code kind}'s table, as {@code qm get} prints it: of the object {@code name} (not found is a
   * {@code NotFound} error), else of those {@code selector} matches. This default renders what
   * {@link #get} and {@link #list} return, with AGE measured at {@code now}; the HTTP client asks
   * the server to render it (its AGE is the server's).
   */
  default <T extends ApiObject> ObjectTable table(
      Kind<T> kind, Optional<String> name, LabelSelector selector, Instant now) {
    var objects =
        name.isPresent()
            ? List.of(
                get(kind, name.get())
                    .orElseThrow(
                        () ->
                            new ApiException(
                                Reason.NotFound,
                                kind.singular() + "/" + name.get() + " not found")))
            : list(kind, selector).items();
    return rendered(kind, objects, now);
  }

  /**
   * One page of {@code kind}'s table ({@link #list(Kind, LabelSelector, ListPage)}), with the next
   * page's token.
   */
  default <T extends ApiObject> ObjectTable table(
      Kind<T> kind, LabelSelector selector, ListPage page, Instant now) {
    var list = list(kind, selector, page);
    return rendered(kind, list.items(), now).withContinue(list.continueToken());
  }

  private <T extends ApiObject> ObjectTable rendered(Kind<T> kind, List<T> objects, Instant now) {
    return ObjectTable.of(
        KindTables.of(
            kind,
            now,
            n -> gpusFree(this, n),
            n -> migOf(this, n).freeText(),
            n -> sharedFree(this, n)),
        objects);
  }

  /**
   * {@code qm get nodes}' GPUS: whole GPUs a claim could get now (published, healthy, held by no
   * claim, in neither MIG nor a sharing mode) over all the GPUs the node publishes, {@code 3/8};
   * {@code -} for a node that publishes none.
   */
  static String gpusFree(ApiClient api, Node node) {
    var held = HeldDevices.read(api, node.metadata().name());
    int total = 0;
    int free = 0;
    for (var d : held.slice().devices()) {
      if (!d.deviceClass().equals(dev.quartermaster.api.device.mig.NodeMigGpus.WHOLE_GPU_CLASS)) {
        continue;
      }
      total++;
      if (d.health() == dev.quartermaster.api.device.Device.Health.Healthy
          && !held.holders().containsKey(d.name())
          && !node.spec().mig().containsKey(d.name())
          && !node.spec().sharing().containsKey(d.name())) {
        free++;
      }
    }
    return total == 0 ? "-" : free + "/" + total;
  }

  /**
   * {@code qm get nodes}' SHARED FREE: replicas free of all over the time-sliced GPUs ({@code
   * 1/4}), then each MPS GPU's free compute and memory ({@code 40%/52Gi}); {@code -} for none. The
   * slice and allocation record are read only for a node whose spec shares a GPU, so a listing of
   * nodes without reads nothing more.
   */
  static String sharedFree(ApiClient api, Node node) {
    if (node.spec().sharing().isEmpty()) {
      return TimeSlicedGpu.freeText(List.of());
    }
    var held = HeldDevices.read(api, node.metadata().name());
    var ts = TimeSlicedGpu.of(node.spec(), held.slice(), held.holders());
    var mps = MpsGpu.of(node.spec(), held.slice(), held.holders());
    if (mps.isEmpty()) {
      return TimeSlicedGpu.freeText(ts);
    }
    return ts.isEmpty()
        ? MpsGpu.freeText(mps)
        : TimeSlicedGpu.freeText(ts) + " " + MpsGpu.freeText(mps);
  }

  /**
   * A node's MIG GPUs as its slice and allocation record show them, a device the record gives a
   * claim counted held; read only for a node whose spec wishes MIG, so a listing of nodes without
   * reads nothing more.
   */
  static NodeMigGpus migOf(ApiClient api, Node node) {
    if (node.spec().mig().isEmpty()) {
      return NodeMigGpus.NONE;
    }
    var held = HeldDevices.read(api, node.metadata().name());
    return NodeMigGpus.of(node.spec(), held.slice(), held.holders());
  }

  /**
   * Creates {@code object}; the server sets uid, revision, generation 1 and createdAt. Status given
   * at create is kept (agents publish objects with their status). {@code AlreadyExists} if the name
   * is taken.
   */
  <T extends ApiObject> T create(T object);

  /**
   * Replaces metadata (labels, finalizers, owner) and spec, if {@code metadata.revision} is still
   * the current revision ({@code Conflict} otherwise). Status is left as stored. When a deleting
   * object's last finalizer is removed, the object goes away.
   */
  <T extends ApiObject> T update(T object);

  /**
   * Replaces only the status, compare-and-set on {@code metadata.revision} like {@link #update}.
   */
  <T extends ApiObject> T updateStatus(T object);

  /**
   * Applies {@code writes} as one: every one of them, or none. Each is judged as it would be alone
   * (validation, compare-and-set on its revision, the store's rules), in order, against the objects
   * as the earlier writes of the batch leave them; an object may be written once per batch. Returns
   * the written objects, in order, all at the batch's one revision. If any write cannot be applied,
   * nothing is, and the exception is the one that write would get alone. One decision that changes
   * several objects (the allocator's record and its claims) commits in one transaction this way.
   */
  List<ApiObject> commit(List<Write> writes);

  /**
   * The most writes one {@link #commit} may carry on this client's store (etcd's operations per
   * transaction), or {@link Integer#MAX_VALUE} where the store sets no limit or the client cannot
   * tell (over HTTP): a larger commit is then refused with {@code PayloadTooLarge}, never half
   * applied. Writers that can split their work (a large gang's follow-up writes) size it by this.
   */
  default int writesPerCommit() {
    return Integer.MAX_VALUE;
  }

  /**
   * Deletes {@code name}. Without finalizers the object is gone at once; with finalizers it is
   * marked with {@code deletedAt} and stays until they are removed. Deleting a deleting object
   * changes nothing.
   */
  <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name);

  /**
   * Streams every change of {@code kind} after {@code afterRevision}, in order: the whole cluster's
   * ({@link WatchScope#CLUSTER}).
   */
  default <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchHandler<T> handler) {
    return watch(kind, afterRevision, WatchScope.CLUSTER, handler);
  }

  /**
   * Streams the changes of {@code kind} after {@code afterRevision} that {@code scope} asks for, in
   * order: at least those, maybe more (every change is always allowed). If that history was
   * compacted, the handler's {@code onGone} is called and the caller re-lists.
   */
  <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler);
}
