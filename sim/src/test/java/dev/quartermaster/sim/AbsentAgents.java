package dev.quartermaster.sim;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.core.queue.Result;
import java.util.ArrayList;

/**
 * The nodes' agents of a simulation that runs none, where no claim is ever prepared: each lets go
 * of a deleted claim at once, as a real agent does of a claim it never prepared (it unprepares
 * nothing and takes its finalizer off). The allocator puts a node's finalizer on with the
 * allocation, so without this a deleted allocated claim would wait for an agent that never comes.
 */
final class AbsentAgents {
  private AbsentAgents() {}

  static ControlLoop start(SimCluster c, Informers informers) {
    var loop =
        new ControlLoop(
            "absent-agents",
            c.env(),
            1,
            name -> {
              var claim = informers.claims().cache().get(name);
              if (claim.isEmpty() || !claim.get().metadata().isDeleting()) {
                return Result.done();
              }
              var kept = unprepared(claim.get());
              if (kept.size() == claim.get().metadata().finalizers().size()) {
                return Result.done();
              }
              try {
                c.api()
                    .update(claim.get().withMetadata(claim.get().metadata().withFinalizers(kept)));
              } catch (ApiException e) {
                if (!e.is(Reason.NotFound)) {
                  return Result.requeue(); // a newer one comes with its event
                }
              }
              return Result.done();
            });
    informers
        .claims()
        .addHandler(EventHandler.onAddOrUpdate(x -> loop.enqueue(x.metadata().name())));
    return loop;
  }

  /** The finalizers of {@code c} but those of agents that never prepared it. */
  private static java.util.List<String> unprepared(ResourceClaim c) {
    var kept = new ArrayList<String>();
    for (var f : c.metadata().finalizers()) {
      var agent = AgentFinalizer.parse(f);
      if (agent.isEmpty() || c.status().prepare().containsKey(agent.get().node())) {
        kept.add(f);
      }
    }
    return kept;
  }
}
