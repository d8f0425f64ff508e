package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.queue.Result;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a decision does with keys besides its own: queue one now, or park its own in the {@link
 * Waiters} until an event could change its outcome — and, for claims that got no devices, say why
 * on each ({@code Allocated=False} with the reason and an event, written only when it changes). The
 * same for a task's, a stand-alone claim's and a gang's decision.
 */
final class AllocatorQueue {
  private final Consumer<AllocatorKey> queue;
  private final Waiters waiters;
  private final Env env;
  private final ApiClient api;
  private final EventRecorder events;

  AllocatorQueue(
      Consumer<AllocatorKey> queue, Waiters waiters, Env env, ApiClient api, EventRecorder events) {
    this.queue = queue;
    this.waiters = waiters;
    this.env = env;
    this.api = api;
    this.events = events;
  }

  /** Queues {@code key} now (the queue dedupes). */
  void queue(AllocatorKey key) {
    queue.accept(key);
  }

  /** Parks {@code key} until one of {@code wait}'s events happens (see {@link Waiters#park}). */
  void park(AllocatorKey key, Waiters.Ticket ticket, Waiters.Wait wait) {
    waiters.park(key, ticket, wait);
  }

  /** {@code event} happened: the keys waiting for it are queued. */
  void happened(WakeEvent event) {
    waiters.happened(event);
  }

  /** The commit begun on {@code node} ended: keys that fit only there are queued. */
  void commitEnded(String node) {
    waiters.happened(new WakeEvent.CommitEnded(node));
  }

  /**
   * Says on each of {@code pending} why it got no devices, and parks {@code key} until something
   * could change that.
   */
  Result block(
      AllocatorKey key,
      Waiters.Ticket ticket,
      List<ResourceClaim> pending,
      NoPlacement why,
      String message) {
    boolean namesDomain = pending.stream().anyMatch(c -> c.spec().computeDomain().isPresent());
    waiters.park(key, ticket, why.waitFor(namesDomain));
    var reason = why.reason();
    var condition = Conditions.of(ClaimConditions.ALLOCATED, false, reason, message);
    for (var c : pending) {
      if (!Conditions.has(c.status().conditions(), condition)) {
        var s = c.status();
        api.updateStatus(
            c.withStatus(
                new ResourceClaimStatus(
                    s.allocation(),
                    s.reservedFor(),
                    s.prepare(),
                    Conditions.set(s.conditions(), condition, env.now()))));
        events.warning(c, reason, message);
      }
    }
    return Result.done();
  }
}
