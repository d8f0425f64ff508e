package dev.quartermaster.control.allocator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceClassSpec;
import dev.quartermaster.api.device.DeviceClassStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.DeviceSliceStatus;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.informer.EventHandler;
import dev.quartermaster.sim.SimStore;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The stall of the bench's "allocator alone" round 3 (commit 15c41ea), step by step on real
 * threads: the informers of nodes and of slices each refresh a node in the allocator's {@link
 * DeviceIndex} on a thread of their own. At start-up both lists land at once; the nodes thread read
 * the caches before node-0's slice was in them, then waited for the index's lock while the slices
 * thread indexed node-0 with its GPUs — and landed last: node-0 indexed with no devices. Nothing
 * changes node-0 again in a quiet fleet (no claim can go there, so its record never changes), and
 * with exactly as many GPUs as claims the last claims waited for good. (In the test package of the
 * allocator, in the simulation's module for its store.)
 */
class StaleRefreshTest {

  @Test
  void aRefreshThatWaitedForTheLockDoesNotUndoANewerOne() throws Exception {
    var env = new SystemEnv();
    var api = new ObjectRegistry(new SimStore(env), env);
    api.create(
        new DeviceClass(
            ObjectMeta.named("gpu"),
            new DeviceClassSpec("gpu", List.of()),
            DeviceClassStatus.EMPTY));
    var conditions =
        List.of(
            new Condition("AgentReady", Condition.Status.True, "Heartbeat", "", Optional.empty()),
            new Condition(
                "DevicesReady", Condition.Status.True, "AllPresent", "", Optional.empty()));
    var node =
        api.create(
            new Node(
                ObjectMeta.named("node-0"),
                NodeSpec.EMPTY,
                new NodeStatus(conditions, Optional.empty(), "b", "", List.of())));

    var informers = new Informers(env, api);
    // Handlers added before the allocator's run before them, on the informer's thread: one names
    // the nodes thread, the other holds the slices thread back before the allocator hears of the
    // slice.
    var nodesThread = new AtomicReference<Thread>();
    informers
        .nodes()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onUpdate(Node old, Node n) {
                nodesThread.set(Thread.currentThread());
              }
            });
    var sliceHeld = new CountDownLatch(1);
    var releaseSlices = new CountDownLatch(1);
    var holdSlices = new AtomicBoolean(true);
    informers
        .slices()
        .addHandler(
            new EventHandler<>() {
              @Override
              public void onAdd(DeviceSlice s) {
                if (holdSlices.getAndSet(false)) {
                  sliceHeld.countDown();
                  await(releaseSlices);
                }
              }
            });
    var allocator = new Allocator(env, api, informers);
    var field = Allocator.class.getDeclaredField("index");
    field.setAccessible(true);
    var index = (DeviceIndex) field.get(allocator);
    informers.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(informers.hasSynced() && index.isSchedulable("node-0"))
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(index.isSchedulable("node-0")).isTrue();
      assertThat(freeGpus(index)).isZero();
      long relabelled;
      synchronized (index) {
        // The nodes thread hears of a change of node-0 and waits for the index's lock.
        relabelled =
            api.update(node.withMetadata(node.metadata().withLabels(Map.of("rack", "a"))))
                .metadata()
                .revision();
        while (!(nodesThread.get() != null && nodesThread.get().getState() == Thread.State.BLOCKED)
            && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertThat(nodesThread.get()).isNotNull();
        assertThat(nodesThread.get().getState()).isEqualTo(Thread.State.BLOCKED);

        // Meanwhile node-0's slice lands, and is indexed first (played here, on the lock's holder:
        // the slices thread itself is held back, so that it cannot index it again afterwards).
        api.create(
            new DeviceSlice(
                ObjectMeta.named("node-0"),
                new DeviceSliceSpec(
                    "node-0",
                    List.of(
                        new Device("gpu-0", "gpu", Map.of(), Device.Health.Healthy, ""),
                        new Device("gpu-1", "gpu", Map.of(), Device.Health.Healthy, ""))),
                DeviceSliceStatus.EMPTY));
        assertThat(sliceHeld.await(30, TimeUnit.SECONDS)).isTrue();
        allocator.nodeChanged("node-0", Optional.of(WakeEvent.Cluster.SLICES));
        assertThat(freeGpus(index)).isEqualTo(2);
      }
      // The nodes thread gets the lock last.
      var handled = new CountDownLatch(1);
      informers.nodes().whenCaughtUp(relabelled, handled::countDown);
      await(handled);

      assertThat(freeGpus(index))
          .as("node-0's GPUs, indexed before the nodes thread's refresh landed")
          .isEqualTo(2);
    } finally {
      releaseSlices.countDown();
      informers.stop();
    }
  }

  private static int freeGpus(DeviceIndex index) {
    return index.schedulableView("node-0").map(v -> v.free("gpu")).orElse(0);
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
