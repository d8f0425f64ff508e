package dev.quartermaster.store.registry;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.store.Txn.Compare;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one rule reads to judge one write, decoded, each read's revision kept as a compare: the
 * registry adds them to the write's transaction, so a change to anything read fails it.
 */
final class ComparedReads {
  private final Reads reads;
  private final StoredObjects stored;
  private final List<Compare> compares = new ArrayList<>();

  ComparedReads(Reads reads, StoredObjects stored) {
    this.reads = reads;
    this.stored = stored;
  }

  /**
   * {@code name} of {@code kind} as stored now; its revision joins the compares. An object held
   * decoded at the revision the store still has is not read again ({@link StoredObjects#ifStill}).
   */
  <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    var key = StoredObjects.key(kind, name);
    var held = stored.ifStill(kind, key, reads);
    if (held.isPresent()) {
      compares.add(new Compare.ModRevision(key, held.get().modRevision()));
      return Optional.of(held.get().object());
    }
    var kv = reads.get(key);
    compares.add(new Compare.ModRevision(key, kv.map(x -> x.modRevision()).orElse(0L)));
    return kv.map(x -> stored.decode(kind, x));
  }

  /** The compares of every read so far. */
  List<Compare> compares() {
    return compares;
  }
}
