package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.sim.SimStore;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.WatchListener;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The partitions bench's judge of a real store's history: fed each transaction as a watch delivers
 * it, it finds what the store's rules keep out when a store without them lets it in.
 */
class HistoryPromisesTest {
  private final DeterministicEnv env = new DeterministicEnv(3);
  private final SimStore store = new SimStore(env);
  private final HistoryPromises judge = new HistoryPromises(env);
  private final List<String> found = new ArrayList<>();

  /** Feeds the judge every transaction of the store, as the bench's watch of etcd does. */
  private void watch() {
    var batch = new ArrayList<StoreEvent>();
    long[] revision = {-1};
    store.watch(
        "/",
        0,
        new WatchListener() {
          @Override
          public void onEvent(StoreEvent event) {
            long at = event.kv().modRevision();
            if (at != revision[0] && !batch.isEmpty()) {
              judge.committed(revision[0], List.copyOf(batch));
              found.addAll(judge.check());
              batch.clear();
            }
            revision[0] = at;
            batch.add(event);
          }

          @Override
          public void onCompacted(long compactedRevision) {}
        });
    env.runUntilIdle();
    if (!batch.isEmpty()) {
      judge.committed(revision[0], List.copyOf(batch));
      found.addAll(judge.check());
    }
  }

  private static ResourceClaim claim(String name) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  /** A claim allocated gpu-0 of node-1. */
  private static ResourceClaim allocated(String name) {
    var c = claim(name);
    return c.withStatus(
        c.status()
            .withAllocation(
                new Allocation("node-1", List.of(new Allocation.AllocatedDevice("gpu", "gpu-0")))));
  }

  @Test
  void aDeviceAllocatedTwiceIsI1AtTheRevisionItHappens() {
    var naive = ObjectRegistry.withoutCrossObjectRules(store, env);
    naive.create(ExclusiveUseTest.slice(false));
    naive.create(allocated("a"));
    naive.create(allocated("b"));
    naive.delete(Kinds.RESOURCE_CLAIM, "b");
    watch();
    assertThat(found).containsExactly("I1 store: node-1/gpu-0 allocated to claims a and b");
    assertThat(judge.check()).isEmpty(); // gone again at the last revision: only the history saw it
  }

  @Test
  void aStoreWithItsRulesGivesTheJudgeNothing() {
    var api = new ObjectRegistry(store, env);
    api.create(ExclusiveUseTest.slice(false));
    api.create(claim("a"));
    watch();
    assertThat(found).isEmpty();
    assertThat(judge.revision()).isPositive();
  }

  /**
   * A write stamped with a term that ended before it committed: caught at its revision; one of the
   * current term is not.
   */
  @Test
  void aWriteOfAnEndedTermIsFenceAtItsRevision() {
    var fence = "/leases/controllers/term";
    var registry = new ObjectRegistry(store, env);
    long first = putFence(fence, "1");
    var firstTerm = registry.unfencedBy(fence, first);
    firstTerm.create(claim("a"));
    long second = putFence(fence, "2");
    registry.fencedBy(fence, second).create(claim("b"));
    firstTerm.create(claim("c")); // decided under term 1, lands in term 2
    watch();
    assertThat(found)
        .containsExactly(
            "TERM: a write decided under the term that began at revision "
                + first
                + " of "
                + fence
                + " committed at revision "
                + (second + 2)
                + ", after a newer term began at revision "
                + second);
  }

  /** A new term: the fence key put; the revision it was put at. */
  private long putFence(String key, String epoch) {
    store.txn(
        dev.quartermaster.store.Txn.when(
            List.of(),
            List.of(
                new dev.quartermaster.store.Txn.Op.Put(
                    key, epoch.getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
    return store.currentRevision();
  }
}
