package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A compute domain cannot be deleted out from under the claims that name it. */
class DomainGuardTest {
  @TempDir Path dir;
  Store store;
  ObjectRegistry api;

  @BeforeEach
  void open() {
    store = SqliteStore.open(dir.resolve("store.db"));
    api = new ObjectRegistry(store, new DeterministicEnv(5));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void everyNewDomainCarriesTheInUseFinalizerSoADeleteWaits() {
    var created = api.create(domain());
    assertThat(created.metadata().finalizers()).containsExactly(ComputeDomain.IN_USE_FINALIZER);
    api.delete(Kinds.COMPUTE_DOMAIN, "nvlink-a");
    assertThat(api.get(Kinds.COMPUTE_DOMAIN, "nvlink-a").orElseThrow().metadata().isDeleting())
        .isTrue();
  }

  @Test
  void aPlainWriteCannotDropTheFinalizerWhileClaimsNameTheDomain() {
    var created = api.create(domain());
    var used =
        api.updateStatus(
            created.withStatus(
                new ComputeDomainStatus(List.of(), List.of("train-w-0-gpu"), List.of())));
    var withoutFinalizer = used.withMetadata(used.metadata().withFinalizers(List.of()));
    var refused = catchThrowableOfType(ApiException.class, () -> api.update(withoutFinalizer));
    assertThat(refused.getMessage())
        .contains("metadata.finalizers", "while claims name the domain (train-w-0-gpu)");
    assertThat(api.get(Kinds.COMPUTE_DOMAIN, "nvlink-a").orElseThrow().metadata().finalizers())
        .containsExactly(ComputeDomain.IN_USE_FINALIZER);

    // Once no claim names it, the controller (or anyone) may let it go.
    var unused = api.updateStatus(used.withStatus(ComputeDomainStatus.EMPTY));
    assertThat(
            api.update(unused.withMetadata(unused.metadata().withFinalizers(List.of())))
                .metadata()
                .finalizers())
        .isEmpty();
  }

  private static ComputeDomain domain() {
    return new ComputeDomain(
        ObjectMeta.named("nvlink-a"), new ComputeDomainSpec(2), ComputeDomainStatus.EMPTY);
  }
}
