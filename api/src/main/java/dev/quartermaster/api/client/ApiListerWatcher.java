package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.informer.ListerWatcher;
import dev.quartermaster.core.informer.Listing;
import dev.quartermaster.core.informer.Subscription;
import dev.quartermaster.core.informer.WatchEvent;
import dev.quartermaster.core.informer.WatchSink;

/**
 * Objects of one kind from an {@link ApiClient}, as core's informer wants them (claims, tasks),
 * watched in a {@link WatchScope}: the list is the whole kind, the watch at least the scope's
 * changes.
 */
public final class ApiListerWatcher<T extends ApiObject> implements ListerWatcher<T> {
  private final ApiClient api;
  private final Kind<T> kind;
  private final WatchScope scope;

  public ApiListerWatcher(ApiClient api, Kind<T> kind, WatchScope scope) {
    this.api = api;
    this.kind = kind;
    this.scope = scope;
  }

  public ApiListerWatcher(ApiClient api, Kind<T> kind) {
    this(api, kind, WatchScope.CLUSTER);
  }

  @Override
  public Listing<T> list() {
    var list = api.list(kind);
    return new Listing<>(list.items(), list.revision());
  }

  @Override
  public Subscription watch(long afterRevision, WatchSink<T> sink) {
    var handle =
        api.watch(
            kind,
            afterRevision,
            scope,
            new WatchHandler<>() {
              @Override
              public void onEvent(dev.quartermaster.api.client.WatchEvent<T> event) {
                var object = event.object();
                var revision = event.revision();
                sink.event(
                    switch (event.type()) {
                      case ADDED -> new WatchEvent.Added<>(object, revision);
                      case MODIFIED -> new WatchEvent.Modified<>(object, revision);
                      case DELETED -> new WatchEvent.Deleted<>(object, revision);
                    });
              }

              @Override
              public void onGone(long compactedRevision) {
                sink.compacted();
              }

              @Override
              public void onClosed(String reason) {
                sink.closed(reason);
              }
            });
    return handle::close;
  }
}
