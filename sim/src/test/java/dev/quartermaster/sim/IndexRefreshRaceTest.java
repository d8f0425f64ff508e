package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * L1 on real threads: the allocator's device index must never let a view of a node built from older
 * inputs replace a newer one. Nothing corrects such a view until the node, its record or its slices
 * change again, and in a quiet cluster nothing does: the bench's "allocator alone" round 3 (commit
 * 15c41ea) stalled so, its last claims parked as WaitingForDevices for good while a node's GPUs
 * were free in the store. There the informers of nodes and of slices each read the caches, then
 * waited for the index's lock, and the one that read before the other's list landed last; here the
 * same undoing is set up without luck: a commit's own write indexes the node as the commit read it
 * live, after the node's cordon was indexed.
 */
class IndexRefreshRaceTest {

  /** The allocator's client: its first commit lands, then returns only once released. */
  private static final class HeldFirstCommit extends ForwardingApiClient {
    final CountDownLatch landed = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean first = new AtomicBoolean(true);

    HeldFirstCommit(ApiClient api) {
      super(api);
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      var written = api.commit(writes);
      if (first.getAndSet(false)) {
        landed.countDown();
        await(release);
      }
      return written;
    }
  }

  @Test
  void aCommitDoesNotIndexItsNodeAsItWasBeforeACordonTheIndexHasSeen() throws Exception {
    var env = new SystemEnv();
    var api = new ObjectRegistry(new SimStore(env), env);
    new SimClusterOn(api).world(2, 2);
    var held = new HeldFirstCommit(api);
    var informers = new Informers(env, api);
    var allocator = new Allocator(env, held, informers);
    informers.start();
    allocator.loop().start();
    try {
      // Best fit, a tie: node-0. Its commit lands; the record's event is indexed meanwhile.
      api.create(AllocatorRaceTest.claim("c1", 1));
      assertThat(held.landed.await(30, TimeUnit.SECONDS)).isTrue();
      var record = api.get(Kinds.NODE_ALLOCATION, "node-0").orElseThrow();
      caughtUp(informers.nodeAllocations()::whenCaughtUp, record.metadata().revision());

      // node-0 is cordoned, and the index has seen it (the informer's handlers ran).
      var node = api.get(Kinds.NODE, "node-0").orElseThrow();
      var cordoned =
          api.update(new Node(node.metadata(), new NodeSpec(true, false), node.status()));
      caughtUp(informers.nodes()::whenCaughtUp, cordoned.metadata().revision());

      // The commit returns and indexes its write: node-0 must stay cordoned in the index.
      held.release.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (allocator.allocations() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }

      // One GPU is free on node-0, cordoned, and two on node-1: c2 belongs on node-1. Were node-0
      // indexed as uncordoned, c2 would be placed there, refused (Stale) and retried with a growing
      // backoff, for ever: no event about node-0 comes again.
      api.create(AllocatorRaceTest.claim("c2", 1));
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline && !allocated(api, "c2")) {
        Thread.sleep(20);
      }
      assertThat(allocated(api, "c2"))
          .as("c2 allocated while node-1 has two free GPUs (node-0 is cordoned)")
          .isTrue();
      assertThat(
              api.get(Kinds.RESOURCE_CLAIM, "c2")
                  .orElseThrow()
                  .status()
                  .allocation()
                  .orElseThrow()
                  .node())
          .isEqualTo("node-1");
    } finally {
      held.release.countDown();
      allocator.loop().stop();
      informers.stop();
    }
  }

  private static boolean allocated(ObjectRegistry api, String claim) {
    return api.get(Kinds.RESOURCE_CLAIM, claim)
        .map(c -> c.status().allocation().isPresent())
        .orElse(false);
  }

  /** How an informer runs a callback once its cache, and its handlers, have reached a revision. */
  private interface WhenCaughtUp {
    Env.Cancellable when(long revision, Runnable callback);
  }

  private static void caughtUp(WhenCaughtUp informer, long revision) {
    var done = new CountDownLatch(1);
    informer.when(revision, done::countDown);
    await(done);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
