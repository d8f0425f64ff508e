package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.cluster.GroupCommit;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GroupCommit} on a real registry and threads: decisions that queue while a batch is in the
 * store go in one transaction, each caller gets exactly its own objects, and one stale decision in
 * a shared batch fails alone while the others still land together.
 */
class GroupCommitTest {
  @TempDir Path dir;

  /** An API whose first commit waits at a gate, so that the others queue behind it. */
  static final class GatedApi extends ForwardingApiClient {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch gate = new CountDownLatch(1);
    int commits;

    GatedApi(ApiClient api) {
      super(api);
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      boolean first;
      synchronized (this) {
        first = commits++ == 0;
      }
      if (first) {
        entered.countDown();
        await(gate);
      }
      return api.commit(writes);
    }
  }

  static ResourceClaim claim(String name) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  @Test
  void decisionsQueuedBehindABatchCommitTogetherAndEachGetsItsOwn() throws Exception {
    var outcome = run(List.of());
    assertThat(outcome.results()).allSatisfy(r -> assertThat(r).isInstanceOf(ResourceClaim.class));
    for (int i = 0; i < outcome.results().size(); i++) {
      var c = (ResourceClaim) outcome.results().get(i);
      assertThat(c.metadata().name()).isEqualTo("c" + i);
      assertThat(c.metadata().labels()).containsEntry("decided", "c" + i);
    }
    assertThat(outcome.transactions())
        .as("the first alone, the 7 queued behind it in one")
        .isEqualTo(2);
  }

  @Test
  void oneStaleDecisionInASharedBatchFailsAloneAndTheOthersLand() throws Exception {
    var outcome = run(List.of(4));
    assertOnlyFailed(outcome, List.of(4), Reason.Conflict);
    // The store names the write that lost: only that decision is tried alone, the 6 others land
    // together.
    // (Committing each of the 7 alone after the refusal, as before, took 9.)
    assertThat(outcome.transactions())
        .as("first alone, the shared batch refused, the stale one alone, the 6 others")
        .isEqualTo(4);
  }

  @Test
  void twoStaleDecisionsAreTakenOutOneAtATime() throws Exception {
    var outcome = run(List.of(2, 6));
    assertOnlyFailed(outcome, List.of(2, 6), Reason.Conflict);
    assertThat(outcome.transactions())
        .as("first; refused, stale alone; refused, stale alone; the 5 others")
        .isEqualTo(6);
  }

  @Test
  void anInvalidDecisionIsTakenOutLikeAStaleOne() throws Exception {
    var outcome = run(List.of(), List.of(3));
    assertOnlyFailed(outcome, List.of(3), Reason.Invalid);
    assertThat(outcome.transactions())
        .as("first alone, the shared batch refused, the invalid one alone, the 6 others")
        .isEqualTo(4);
  }

  record Outcome(List<Object> results, long transactions) {}

  /** The callers in {@code failed} got an error of {@code reason}; every other caller its claim. */
  private static void assertOnlyFailed(Outcome outcome, List<Integer> failed, Reason reason) {
    for (int i = 0; i < outcome.results().size(); i++) {
      var r = outcome.results().get(i);
      if (failed.contains(i)) {
        assertThat(r)
            .as("caller %d", i)
            .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.is(reason)).isTrue());
      } else {
        assertThat(r).as("caller %d", i).isInstanceOf(ResourceClaim.class);
      }
    }
  }

  private Outcome run(List<Integer> stale) throws Exception {
    return run(stale, List.of());
  }

  /**
   * 8 callers each label their own claim; those in {@code stale} send a revision that moved on,
   * those in {@code invalid} a label the API refuses.
   */
  private Outcome run(List<Integer> stale, List<Integer> invalid) throws Exception {
    var store = SqliteStore.open(dir.resolve("store.db"));
    try {
      var registry = new ObjectRegistry(store, new SystemEnv());
      var claims = new ArrayList<ResourceClaim>();
      for (int i = 0; i < 8; i++) {
        claims.add(registry.create(claim("c" + i)));
      }
      for (int i : stale) {
        registry.update(
            claims.get(i).withMetadata(claims.get(i).metadata().withLabels(Map.of("moved", "on"))));
      }
      var api = new GatedApi(registry);
      var commits = new GroupCommit(api);
      var futures = new ArrayList<CompletableFuture<Object>>();
      for (int i = 0; i < 8; i++) {
        var c = claims.get(i);
        var label = invalid.contains(i) ? "not a label!" : c.metadata().name();
        var write =
            new Write.Update(c.withMetadata(c.metadata().withLabels(Map.of("decided", label))));
        futures.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return (Object) commits.commit(List.of(write)).getFirst();
                  } catch (ApiException e) {
                    return e;
                  }
                },
                runnable -> Thread.ofVirtual().start(runnable)));
        if (i == 0) {
          await(api.entered);
        }
      }
      awaitTrue(() -> commits.waiting() == 7);
      api.gate.countDown();
      var results = new ArrayList<Object>();
      for (var f : futures) {
        results.add(f.get());
      }
      return new Outcome(results, commits.transactions());
    } finally {
      store.close();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new AssertionError("timed out waiting");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitTrue(BooleanSupplier condition) {
    var deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not met within 30 s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
