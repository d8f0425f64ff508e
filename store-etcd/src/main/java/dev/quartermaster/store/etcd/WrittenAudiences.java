package dev.quartermaster.store.etcd;

import dev.quartermaster.store.Audience;
import dev.quartermaster.store.Txn;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who must hear of the changes this process wrote to etcd lately, so that a routed watch can leave
 * out what does not concern its route (etcd keeps no audience: it sends every watch of a prefix
 * every change under it, and an agent's watch of its node's tasks would hear every task of the
 * cluster). A change is known by its key and a hash of the value it put (a delete, by its key
 * alone), noted before the transaction is sent, so that its watch event, which may arrive before
 * the transaction's answer, finds it. The same key and value written twice with two audiences are
 * known by their union, so a lookup never leaves out a route a change concerns; a change this
 * process did not write (another server's, or one noted too long ago) is unknown, and a routed
 * watch delivers it, as {@link dev.quartermaster.store.Store#watch(String, String, long,
 * dev.quartermaster.store.WatchListener)} allows.
 */
final class WrittenAudiences {
  private record Change(String key, long valueHash, int length, boolean delete) {}

  private final Map<Change, Set<String>> routes;

  WrittenAudiences(int capacity) {
    this.routes =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Change, Set<String>> eldest) {
            return size() > capacity;
          }
        };
  }

  /** Notes the routed audiences of the puts and deletes {@code ops} may commit. */
  void note(Iterable<Txn.Op> ops) {
    for (var op : ops) {
      var audience = op.audience();
      if (!(audience instanceof Audience.Routes r)) {
        continue; // everyone hears it: nothing to note
      }
      var change =
          switch (op) {
            case Txn.Op.Put p -> new Change(p.key(), hash(p.value()), p.value().length, false);
            case Txn.Op.Delete d -> new Change(d.key(), 0, 0, true);
          };
      synchronized (routes) {
        routes.merge(
            change,
            Set.copyOf(r.names()),
            (a, b) -> {
              var union = new HashSet<>(a);
              union.addAll(b);
              return Set.copyOf(union);
            });
      }
    }
  }

  /** The routes that must hear of a put of {@code value} at {@code key}; empty: unknown. */
  Optional<Set<String>> ofPut(String key, byte[] value) {
    return find(new Change(key, hash(value), value.length, false));
  }

  /** The routes that must hear of the delete of {@code key}; empty: unknown. */
  Optional<Set<String>> ofDelete(String key) {
    return find(new Change(key, 0, 0, true));
  }

  private Optional<Set<String>> find(Change change) {
    synchronized (routes) {
      return Optional.ofNullable(routes.get(change));
    }
  }

  /** FNV-1a, 64 bits: with the key and the length, two values of one key collide by chance only. */
  private static long hash(byte[] value) {
    long h = 0xcbf29ce484222325L;
    for (byte b : value) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
