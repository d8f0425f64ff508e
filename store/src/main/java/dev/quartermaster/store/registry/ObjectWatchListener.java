package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.WatchListener;

/** Turns store events under one kind's prefix into object events. */
final class ObjectWatchListener<T extends ApiObject> implements WatchListener {
  private final Kind<T> kind;
  private final StoredObjects stored;
  private final WatchHandler<T> handler;

  ObjectWatchListener(Kind<T> kind, StoredObjects stored, WatchHandler<T> handler) {
    this.kind = kind;
    this.stored = stored;
    this.handler = handler;
  }

  @Override
  public void onEvent(StoreEvent event) {
    var kv = event.kv();
    switch (event.type()) {
      case PUT -> {
        var type = kv.createRevision() == kv.modRevision() ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED;
        handler.onEvent(new WatchEvent<>(type, stored.decode(kind, kv)));
      }
      case DELETE -> {
        // The last state, stamped with the delete's revision so that watchers advance past it.
        var last = event.previous()
            .map(prev -> stored.decode(kind, prev, event.revision()))
            .orElseGet(() -> emptyNamed(StoredObjects.nameOf(kv.key()), event.revision()));
        handler.onEvent(new WatchEvent<>(WatchEvent.Type.DELETED, last));
      }
    }
  }

  private T emptyNamed(String name, long revision) {
    var json = "{\"kind\":\"" + kind.name() + "\",\"metadata\":{\"name\":\"" + name + "\"}}";
    var object = dev.quartermaster.api.codec.ObjectCodec.fromJson(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), kind);
    return kind.cast(object.withMetadata(object.metadata().withRevision(revision)));
  }

  @Override
  public void onCompacted(long compactedRevision) {
    handler.onGone(compactedRevision);
  }

  @Override
  public void onClosed(String reason) {
    handler.onClosed(reason);
  }
}
