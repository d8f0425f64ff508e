package dev.quartermaster.agent.node;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.core.informer.ListerWatcher;
import dev.quartermaster.core.informer.Listing;
import dev.quartermaster.core.informer.Subscription;
import dev.quartermaster.core.informer.WatchEvent;
import dev.quartermaster.core.informer.WatchSink;

/** ResourceClaims from an {@link ApiClient}, as core's informer wants them. */
public final class ClaimListerWatcher implements ListerWatcher<ResourceClaim> {
  private final ApiClient api;

  public ClaimListerWatcher(ApiClient api) {
    this.api = api;
  }

  @Override
  public Listing<ResourceClaim> list() {
    var list = api.list(Kinds.RESOURCE_CLAIM);
    return new Listing<>(list.items(), list.revision());
  }

  @Override
  public Subscription watch(long afterRevision, WatchSink<ResourceClaim> sink) {
    var handle = api.watch(Kinds.RESOURCE_CLAIM, afterRevision, new WatchHandler<>() {
      @Override
      public void onEvent(dev.quartermaster.api.client.WatchEvent<ResourceClaim> event) {
        var claim = event.object();
        var revision = event.revision();
        sink.event(switch (event.type()) {
          case ADDED -> new WatchEvent.Added<>(claim, revision);
          case MODIFIED -> new WatchEvent.Modified<>(claim, revision);
          case DELETED -> new WatchEvent.Deleted<>(claim, revision);
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
