package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.store.KeyValue;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.WatchListener;

/** Turns store events under one kind's prefix into object events. */
final class ObjectWatchListener<T extends ApiObject> implements WatchListener {
  /** A deleted key whose last value was compacted away; no stored object encodes to nothing. */
  private static final byte[] NO_PREVIOUS = new byte[0];

  private final Kind<T> kind;
  private final StoredObjects stored;
  private final WatchDecodes decodes;
  private final WatchHandler<T> handler;

  ObjectWatchListener(
      Kind<T> kind, StoredObjects stored, WatchDecodes decodes, WatchHandler<T> handler) {
    this.kind = kind;
    this.stored = stored;
    this.decodes = decodes;
    this.handler = handler;
  }

  @Override
  public void onEvent(StoreEvent event) {
    var kv = event.kv();
    switch (event.type()) {
      case PUT -> {
        var type =
            kv.createRevision() == kv.modRevision()
                ? WatchEvent.Type.ADDED
                : WatchEvent.Type.MODIFIED;
        var object =
            decodes.decode(
                kind, kv.key(), kv.modRevision(), event.type(), kv, () -> stored.decode(kind, kv));
        handler.onEvent(new WatchEvent<>(type, object));
      }
      case DELETE -> {
        // The last state, stamped with the delete's revision so that watchers advance past it.
        var previous =
            event.previous().orElseGet(() -> new KeyValue(kv.key(), NO_PREVIOUS, 0, 0, 0));
        var last =
            decodes.decode(
                kind,
                kv.key(),
                event.revision(),
                event.type(),
                previous,
                () ->
                    event
                        .previous()
                        .map(prev -> stored.decode(kind, prev, event.revision()))
                        .orElseGet(
                            () -> emptyNamed(StoredObjects.nameOf(kv.key()), event.revision())));
        handler.onEvent(new WatchEvent<>(WatchEvent.Type.DELETED, last));
      }
    }
  }

  private T emptyNamed(String name, long revision) {
    var json = "{\"kind\":\"" + kind.name() + "\",\"metadata\":{\"name\":\"" + name + "\"}}";
    var object =
        dev.quartermaster.api.codec.ObjectCodec.fromJson(
            json.getBytes(java.nio.charset.StandardCharsets.UTF_8), kind);
    return kind.cast(object.withMetadata(object.metadata().withRevision(revision)));
  }

  @Override
  public void onCompacted(long compactedRevision) {
    handler.onGone(compactedRevision);
  }

  @Override
  public void onCaughtUp(long revision) {
    handler.onCaughtUp(revision);
  }

  @Override
  public void onClosed(String reason) {
    handler.onClosed(reason);
  }
}
