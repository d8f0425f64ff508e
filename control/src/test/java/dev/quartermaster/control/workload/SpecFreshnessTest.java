package dev.quartermaster.control.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@link SpecFreshness}: the cached workload is acted on only while the store still has the same
 * incarnation at the same generation, not being deleted; read once for the first write, again
 * before each further one, and never again once stale.
 */
class SpecFreshnessTest {
  private static final Workload CACHED = workload("w-uid", 3, false);

  private static Workload workload(String uid, long generation, boolean deleting) {
    var meta = ObjectMeta.named("train").withUid(uid).withGeneration(generation);
    return new Workload(
        deleting ? meta.withDeletedAt(Instant.EPOCH) : meta,
        WorkloadSpec.EMPTY,
        WorkloadStatus.EMPTY);
  }

  /** The store's side: one workload (or none) by name, each read counted. */
  private static final class LiveWorkload implements ApiClient {
    Optional<Workload> live;
    int reads;

    LiveWorkload(Optional<Workload> live) {
      this.live = live;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
      reads++;
      return (Optional<T>) live.filter(w -> w.metadata().name().equals(name));
    }

    @Override
    public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T create(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T update(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> T updateStatus(T object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<ApiObject> commit(List<Write> writes) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T extends ApiObject> WatchHandle watch(
        Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
      throw new UnsupportedOperationException();
    }
  }

  /**
   * One case: what the store has of the cached workload, and whether the cached spec is the newest.
   */
  record Case(String what, Optional<Workload> live, boolean newest) {}

  private static final List<Case> TABLE =
      List.of(
          new Case("the same generation", Optional.of(CACHED), true),
          new Case(
              "a newer generation (the cache lags)",
              Optional.of(workload("w-uid", 4, false)),
              false),
          new Case(
              "deleted and re-created under its name",
              Optional.of(workload("other-uid", 3, false)),
              false),
          new Case("being deleted", Optional.of(workload("w-uid", 3, true)), false),
          new Case("gone", Optional.empty(), false));

  @Test
  void theCachedSpecIsNewestOnlyWhileTheStoreHasTheSameIncarnationAtTheSameGeneration() {
    for (var c : TABLE) {
      assertThat(new SpecFreshness(new LiveWorkload(c.live()), CACHED).isNewest())
          .as(c.what())
          .isEqualTo(c.newest());
    }
  }

  /** The naive freshness trusts the cache: it would scale to every stale spec of the table. */
  @Test
  void aFreshnessThatTrustsTheCacheIsCaught() {
    Predicate<Case> naive = c -> true;
    assertThat(TABLE.stream().filter(c -> naive.test(c) != c.newest()).map(Case::what))
        .contains("a newer generation (the cache lags)", "deleted and re-created under its name");
  }

  @Test
  void theFirstAnswerIsKeptAndEachFurtherWriteReadsAgain() {
    var store = new LiveWorkload(Optional.of(CACHED));
    var freshness = new SpecFreshness(store, CACHED);
    assertThat(freshness.isNewest()).isTrue();
    assertThat(freshness.isNewest()).isTrue();
    assertThat(store.reads).as("isNewest reads once per reconcile").isEqualTo(1);
    assertThat(freshness.stillNewest()).isTrue();
    assertThat(store.reads).isEqualTo(2);

    store.live = Optional.of(workload("w-uid", 4, false)); // the spec moves during the batch
    assertThat(freshness.stillNewest())
        .as("the batch stops after at most one more write")
        .isFalse();
    store.live = Optional.of(CACHED);
    assertThat(freshness.stillNewest()).as("once stale, stale for the reconcile").isFalse();
    assertThat(freshness.isNewest()).isFalse();
    assertThat(store.reads).as("and nothing is read again").isEqualTo(3);
  }

  @Test
  void stillNewestBeforeAnyWriteReadsToo() {
    var store = new LiveWorkload(Optional.of(workload("w-uid", 4, false)));
    assertThat(new SpecFreshness(store, CACHED).stillNewest()).isFalse();
    assertThat(store.reads).isEqualTo(1);
  }
}
