package dev.quartermaster.sim;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Optional;

/**
 * An allocator with only the claim's compare-and-set: it picks devices that look free in its own
 * cache and writes the claim. Two of these race into double allocation; kept to prove the checker
 * sees it.
 */
final class NaiveAllocator {
  private final ApiClient api;
  private final Informers informers;
  private final ControlLoop loop;

  NaiveAllocator(Env env, ApiClient api, Informers informers) {
    this.api = api;
    this.informers = informers;
    this.loop = new ControlLoop("naive-allocator", env, 1, this::reconcile);
    informers
        .claims()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(ResourceClaim c) {
                loop.enqueue(c.metadata().name());
              }
            });
  }

  ControlLoop loop() {
    return loop;
  }

  private Result reconcile(String name) {
    var c = informers.claims().cache().get(name);
    if (c.isEmpty() || c.get().status().allocation().isPresent()) {
      return Result.done();
    }
    int want = c.get().spec().requests().stream().mapToInt(r -> r.count()).sum();
    for (var slice : informers.slices().cache().list()) {
      var node = slice.spec().node();
      var taken = new HashSet<String>();
      informers
          .claims()
          .cache()
          .byIndex(Informers.BY_NODE, node)
          .forEach(
              x -> x.status().allocation().get().devices().forEach(d -> taken.add(d.device())));
      var pick = new ArrayList<Allocation.AllocatedDevice>();
      for (var d : slice.spec().devices()) {
        if (pick.size() < want && !taken.contains(d.name())) {
          pick.add(
              new Allocation.AllocatedDevice(
                  c.get().spec().requests().getFirst().name(), d.name()));
        }
      }
      if (pick.size() == want) {
        try {
          var s = c.get().status();
          api.updateStatus(
              c.get()
                  .withStatus(
                      new ResourceClaimStatus(
                          Optional.of(new Allocation(node, pick)),
                          s.reservedFor(),
                          s.prepare(),
                          s.conditions())));
        } catch (RuntimeException e) {
          return Result.requeue();
        }
        return Result.done();
      }
    }
    return Result.requeueAfter(java.time.Duration.ofSeconds(1));
  }
}
