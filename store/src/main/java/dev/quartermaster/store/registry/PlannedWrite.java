package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Txn.Compare;
import dev.quartermaster.store.Txn.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One write of a registry commit, decided: the object it replaces ({@code current}; empty for a
 * create), what it leaves ({@code next}, encoded as {@code bytes}), and the error it fails with
 * when its own object changed before the transaction ({@code lost}: made only then, since an
 * exception's stack trace is costly and nearly every write succeeds; made eagerly, it was twelve
 * per task).
 *
 * @param finished the write removes the last finalizer of a deleting object: the object goes
 */
record PlannedWrite(
    String key,
    Optional<ApiObject> current,
    ApiObject next,
    byte[] bytes,
    Supplier<ApiException> lost,
    boolean finished) {

  PlannedWrite(
      String key,
      Optional<ApiObject> current,
      ApiObject next,
      byte[] bytes,
      Supplier<ApiException> lost) {
    this(key, current, next, bytes, lost, false);
  }

  /**
   * Plans each of {@code writes}; refuses an empty batch and an object written twice in one. What
   * refuses one write in planning (its object changed since it was read, or is gone, or the write
   * is invalid) is that write's own failure: in a batch of several it says which write it was
   * ({@link ApiException#ofWrite}), so a caller that batched several decisions can commit the
   * others again.
   */
  static List<PlannedWrite> all(List<Write> writes, Function<Write, PlannedWrite> plan) {
    if (writes.isEmpty()) {
      throw ApiException.invalid(
          "commit", List.of(new Violation("writes", "must hold at least one write")));
    }
    var out = new ArrayList<PlannedWrite>(writes.size());
    var first = new HashMap<String, Integer>();
    for (int i = 0; i < writes.size(); i++) {
      PlannedWrite w;
      try {
        w = plan.apply(writes.get(i));
      } catch (ApiException e) {
        throw writes.size() == 1 ? e : ApiException.ofWrite(e, i);
      }
      var earlier = first.putIfAbsent(w.key(), i);
      if (earlier != null) {
        throw ApiException.invalid(
            "commit",
            List.of(
                new Violation(
                    "writes[" + i + "]",
                    w.next().ref()
                        + " is written by writes["
                        + earlier
                        + "] too: an object may be written once per batch")));
      }
      out.add(w);
    }
    return out;
  }

  /** The revision the key must still have: the replaced object's, or 0 (absent) for a create. */
  long expected() {
    return current.map(c -> c.metadata().revision()).orElse(0L);
  }

  Op op() {
    var audience = WatchRoutes.of(current, finished ? Optional.empty() : Optional.of(next));
    return finished ? new Op.Delete(key, audience) : new Op.Put(key, bytes, audience);
  }

  /**
   * The rules' verdict on this write against {@code reads}: the compares to add, or an exception.
   */
  List<Compare> judge(WriteRules rules, Reads reads) {
    if (current.isEmpty()) {
      return rules.beforeCreate(reads, next);
    }
    return finished
        ? rules.beforeDelete(reads, current.get())
        : rules.beforeWrite(reads, current.get(), next);
  }

  /**
   * Whether this write is a node's heartbeat and nothing else: only node lifecycle reads it, late
   * by a moment is no matter at a 10 s period, so its commit may wait for others' ({@link
   * Txn.Urgency#MAY_WAIT}).
   */
  boolean mayWait() {
    return !finished
        && current.orElse(null) instanceof Node before
        && next instanceof Node after
        && !after.status().heartbeat().equals(before.status().heartbeat())
        && after.movesOnlyHeartbeat(before);
  }

  /** The object as written at {@code revision}. */
  ApiObject written(long revision) {
    return next.withMetadata(next.metadata().withRevision(revision));
  }
}
