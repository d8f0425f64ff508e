package dev.quartermaster.store.registry;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.registry.DecodedObjects.Held;
import java.util.Optional;

/**
 * How objects sit in the store: key {@code /registry/<plural>/<name>}, value the object's JSON with
 * {@code metadata.revision} left out — the store's modification revision is the truth, set on read.
 */
final class StoredObjects {
  private final DecodedObjects decoded = new DecodedObjects();

  /** What this registry's writes handed over and its watches decoded: asked first. */
  private final WatchDecodes recent;

  StoredObjects(WatchDecodes recent) {
    this.recent = recent;
  }

  static String prefix(Kind<?> kind) {
    return "/registry/" + kind.plural() + "/";
  }

  static String key(Kind<?> kind, String name) {
    return prefix(kind) + name;
  }

  static String nameOf(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  byte[] encode(ApiObject object) {
    return ObjectCodec.toJson(object.withMetadata(object.metadata().withRevision(0)));
  }

  /**
   * The object stored as {@code kv}: the one a recent write of this registry handed over or a watch
   * decoded if they hold it (the rules read the record the last allocation wrote), else the one
   * decoded last for these bytes, else a decode.
   *
   * <p>Bytes this registry is writing now are its writer's object, whoever reads them first: the
   * rules judging the rest of the batch ({@link BatchReads}), or a controller that a watch woke
   * before the writer is back. A batch's own planned write ({@link BatchReads#planned}, at the
   * revision it replaces) is no stored revision and is never held, or it would push out the entry
   * of the revision the store does hold, and every later read of it would decode again.
   */
  <T extends ApiObject> T decode(Kind<T> kind, KeyValue kv) {
    var handedOver = recent.decoded(kind, kv);
    if (handedOver.isPresent()) {
      return handedOver.get();
    }
    var inFlight = recent.inFlight(kind, kv);
    if (inFlight.isPresent()) {
      return inFlight.get();
    }
    if (BatchReads.planned(kv)) {
      return decode(kind, kv, kv.modRevision());
    }
    var known = decoded.get(kind, kv);
    if (known.isPresent()) {
      return known.get();
    }
    var object = decode(kind, kv, kv.modRevision());
    decoded.put(kv, object);
    return object;
  }

  /**
   * {@code key} as {@code reads} see it: the object held decoded for it ({@link DecodedObjects}) if
   * the key is still at its revision there, which costs a read of the key's revision instead of its
   * value (the cohort's ledger, read by the rules of every worker's create, is 181 KB at 1,000
   * workloads; a task or claim read before its update about 1 KB). Empty when nothing is held or
   * the key has moved: the caller reads the value.
   */
  <T extends ApiObject> Optional<Held<T>> ifStill(Kind<T> kind, String key, Reads reads) {
    var held = decoded.held(kind, key).filter(h -> reads.stillAt(key, h.modRevision()));
    held.ifPresent(h -> decoded.served());
    return held;
  }

  /**
   * This registry wrote {@code object} as {@code kv}: it is held decoded from its write on, so that
   * neither the next update nor a rule reading it decodes it again ({@link DecodedObjects}).
   */
  void wrote(KeyValue kv, ApiObject object) {
    decoded.put(kv, object);
  }

  /** {@code key} was deleted by this registry: nothing of it stays held. */
  void deleted(String key) {
    decoded.forget(key);
  }

  /** Objects held one entry per key; tests use it. */
  int heldPerKey() {
    return decoded.heldPerKey();
  }

  /** Decodes answered without decoding; tests use it. */
  long reused() {
    return decoded.hits();
  }

  /** A decode of {@code kv}'s bytes, stamped with {@code revision}: always decodes. */
  <T extends ApiObject> T decode(Kind<T> kind, KeyValue kv, long revision) {
    try {
      var object = ObjectCodec.fromJson(kv.value(), kind);
      return kind.cast(object.withMetadata(object.metadata().withRevision(revision)));
    } catch (ApiException e) {
      // Stored bytes we wrote ourselves do not decode: say which key, never guess.
      throw new ApiException(
          Reason.Internal, "stored object at " + kv.key() + " does not decode: " + e.getMessage());
    }
  }
}
