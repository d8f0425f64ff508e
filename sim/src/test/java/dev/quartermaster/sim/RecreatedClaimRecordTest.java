package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.Informers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A claim deleted and made again under its name while the allocator's cache did not look (its watch
 * cut, a relist finding the new one where the old one was): the relist finds another uid under the
 * name, and the informer tells the old one's delete and the new one's add (its identity), not an
 * update. The old one's record entry is garbage, and the node's only GPU goes to the new one.
 * Campaign seed 187 kept such an entry for ever (a claim of the operator's, deleted and re-created
 * while the leader was paused) and its GPU from the fleet. Fails with an informer that tells an
 * update (checked with an identity that is the same for every object).
 */
class RecreatedClaimRecordTest {
  private static final String NAME = "solo-gpu";

  /** Every delivery ends the watch: the cache learns only by listing again. */
  private static final WatchFaults LISTS_ONLY = new WatchFaults(Duration.ZERO, 1.0, 1.0);

  private static ResourceClaim claim() {
    return new ResourceClaim(
        ObjectMeta.named(NAME),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  private static boolean allocated(SimCluster c, String uid) {
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, NAME)
        .filter(x -> x.metadata().uid().equals(uid))
        .filter(x -> x.status().allocation().isPresent())
        .isPresent();
  }

  @Test
  void theRecordEntryOfAClaimReplacedUnseenIsLetGo() {
    for (long seed : SimCluster.seeds(5)) {
      var c = new SimCluster(seed, LISTS_ONLY);
      c.deviceClass("gpu", "gpu");
      c.addNode("node-0", 1);
      var inf = new Informers(c.env(), c.api());
      List<ControlLoop> loops =
          List.of(new Allocator(c.env(), c.api(), inf).loop(), AbsentAgents.start(c, inf));
      inf.start();
      loops.forEach(ControlLoop::start);
      var first = c.api().create(claim());
      assertThat(c.runUntil(() -> allocated(c, first.metadata().uid()), Duration.ofMinutes(1)))
          .as("seed %d", seed)
          .isTrue();
      // Deleted (its node's finalizer taken off, as its agent does of a claim it never prepared)
      // and made again at once: no step of the simulation runs between.
      var held = c.api().get(Kinds.RESOURCE_CLAIM, NAME).orElseThrow();
      c.api().update(held.withMetadata(held.metadata().withFinalizers(List.of())));
      c.api().delete(Kinds.RESOURCE_CLAIM, NAME);
      var second = c.api().create(claim());
      assertThat(c.runUntil(() -> allocated(c, second.metadata().uid()), Duration.ofMinutes(5)))
          .as("seed %d: the re-created claim gets the node's GPU", seed)
          .isTrue();
    }
  }
}
