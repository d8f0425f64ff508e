package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's scoped watch through the registry and SQLite: its claims arriving and leaving, nothing
 * else.
 */
@Timeout(60)
class NodeScopedWatchTest {
  @TempDir Path dir;

  @Test
  void aNodeHearsItsClaimArriveLeaveAndComeBackAndNoOtherChange() throws Exception {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var api = ObjectRegistry.withoutCrossObjectRules(store, new SystemEnv());
      long from = store.currentRevision();
      var onA = new LinkedBlockingQueue<WatchEvent<ResourceClaim>>();
      var everything = new LinkedBlockingQueue<WatchEvent<ResourceClaim>>();
      var scoped = api.watch(Kinds.RESOURCE_CLAIM, from, WatchScope.node("a"), recorder(onA));
      var unscoped = api.watch(Kinds.RESOURCE_CLAIM, from, recorder(everything));

      var other = api.create(claim("other"));
      var mine = api.create(claim("mine"));
      var arrived = api.updateStatus(allocated(mine, "a"));
      api.updateStatus(allocated(other, "b"));
      var left = api.updateStatus(arrived.withStatus(ResourceClaimStatus.EMPTY));
      var relabelled = api.update(left.withMetadata(left.metadata().withLabels(Map.of("x", "y"))));
      var back = api.updateStatus(allocated(relabelled, "a"));
      api.delete(Kinds.RESOURCE_CLAIM, "other");
      api.delete(Kinds.RESOURCE_CLAIM, "mine");
      long last = store.currentRevision();

      assertThat(take(everything, last)).hasSize(9);
      var heard = take(onA, last);
      assertThat(heard)
          .extracting(e -> e.type() + " " + e.revision())
          .containsExactly(
              "MODIFIED " + arrived.metadata().revision(),
              "MODIFIED " + left.metadata().revision(),
              "MODIFIED " + back.metadata().revision(),
              "DELETED " + last);
      // The departure carries what the claim is now: no longer on a.
      assertThat(heard.get(1).object().status().allocation()).isEmpty();
      scoped.close();
      unscoped.close();
    }
  }

  private static ResourceClaim claim(String name) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  private static ResourceClaim allocated(ResourceClaim c, String node) {
    return c.withStatus(
        c.status()
            .withAllocation(new Allocation(node, List.of(new AllocatedDevice("gpu", "gpu-0")))));
  }

  private static WatchHandler<ResourceClaim> recorder(
      BlockingQueue<WatchEvent<ResourceClaim>> events) {
    return new WatchHandler<>() {
      @Override
      public void onEvent(WatchEvent<ResourceClaim> event) {
        events.add(event);
      }

      @Override
      public void onGone(long compactedRevision) {
        throw new AssertionError("gone at " + compactedRevision);
      }
    };
  }

  /** The events up to and including revision {@code last}, in order. */
  private static List<WatchEvent<ResourceClaim>> take(
      BlockingQueue<WatchEvent<ResourceClaim>> events, long last) throws InterruptedException {
    var taken = new ArrayList<WatchEvent<ResourceClaim>>();
    while (taken.isEmpty() || taken.getLast().revision() < last) {
      var event = events.poll(30, TimeUnit.SECONDS);
      assertThat(event).as("an event within the bound after %s", taken).isNotNull();
      taken.add(event);
    }
    return taken;
  }
}
