package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Workload;
import java.util.Optional;

/**
 * Whether the cached workload a reconcile acts on is still the newest spec: one live read per
 * reconcile, made only when the reconcile is about to write. The cache may lag; the spec a
 * controller scales to must not.
 */
final class SpecFreshness {
  private final ApiClient api;
  private final Workload cached;
  private Optional<Boolean> newest = Optional.empty();

  SpecFreshness(ApiClient api, Workload cached) {
    this.api = api;
    this.cached = cached;
  }

  boolean isNewest() {
    if (newest.isEmpty()) {
      var live = api.get(Kinds.WORKLOAD, cached.metadata().name());
      newest = Optional.of(live.filter(l -> l.metadata().uid().equals(cached.metadata().uid())
          && l.metadata().generation() == cached.metadata().generation() && !l.metadata().isDeleting()).isPresent());
    }
    return newest.get();
  }
}
