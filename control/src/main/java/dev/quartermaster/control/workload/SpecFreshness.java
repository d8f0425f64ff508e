package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Workload;
import java.util.Optional;

/**
 * Whether the cached workload a reconcile acts on is still the newest spec. The cache may lag; the
 * spec a controller scales to must not. {@link #isNewest} reads live once per reconcile, when it is
 * about to write; {@link #stillNewest} reads again before each further write, so a spec that moves
 * while a batch is being written stops the batch after at most one write. The window between a read
 * and that one write is closed by the server: each create and scale-down carries the spec
 * generation it was decided on ({@code SpecDecision}) and is refused once the workload has moved.
 * Once stale, it stays stale for the reconcile.
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
      newest = Optional.of(readLive());
    }
    return newest.get();
  }

  boolean stillNewest() {
    if (newest.isEmpty() || newest.get()) {
      newest = Optional.of(readLive());
    }
    return newest.get();
  }

  private boolean readLive() {
    return api.get(Kinds.WORKLOAD, cached.metadata().name())
        .filter(
            l ->
                l.metadata().uid().equals(cached.metadata().uid())
                    && l.metadata().generation() == cached.metadata().generation()
                    && !l.metadata().isDeleting())
        .isPresent();
  }
}
