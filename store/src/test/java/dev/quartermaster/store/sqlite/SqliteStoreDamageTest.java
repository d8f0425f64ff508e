package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.store.StoreException;
import dev.quartermaster.store.Txn;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lost, emptied or damaged store file is refused loudly, naming it, instead of starting empty.
 */
class SqliteStoreDamageTest {
  private static final int PAGE = 4096;

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("store.db");
  }

  /** A store with enough rows to span many pages, closed cleanly (the WAL checkpointed away). */
  private void populate() {
    try (var store = SqliteStore.open(file())) {
      for (int i = 0; i < 300; i++) {
        byte[] value = new byte[600];
        Arrays.fill(value, (byte) i);
        store.txn(Txn.when(List.of(), List.of(new Txn.Op.Put("/k/" + i, value))));
      }
    }
    assertThat(Files.exists(dir.resolve("store.db-wal"))).as("clean close leaves no WAL").isFalse();
  }

  @Test
  void aFreshDirectoryStartsAndGetsAMarker() {
    try (var store = SqliteStore.open(file())) {
      assertThat(store.currentRevision()).isZero();
    }
    assertThat(SqliteStore.markerOf(file())).exists();
    try (var store = SqliteStore.open(file())) {
      assertThat(store.currentRevision()).as("reopening its own file is fine").isZero();
    }
  }

  @Test
  void aDeletedStoreIsRefusedNamingTheMarker() throws Exception {
    populate();
    Files.delete(file());

    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("missing or empty")
        .hasMessageContaining(SqliteStore.markerOf(file()).toString())
        .hasMessageContaining("Restore");
    assertThat(file()).as("the refusal leaves no empty file behind").doesNotExist();
    assertThatThrownBy(() -> SqliteStore.check(file())).hasMessageContaining("does not exist");
  }

  @Test
  void aStoreTruncatedToNothingIsRefused() throws Exception {
    populate();
    try (var raf = new RandomAccessFile(file().toFile(), "rw")) {
      raf.setLength(0);
    }

    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("missing or empty");
    assertThat(SqliteStore.check(file()).problems())
        .singleElement()
        .asString()
        .contains("holds no store");
  }

  @Test
  void deletingTheMarkerDeliberatelyAllowsANewStore() throws Exception {
    populate();
    Files.delete(file());
    Files.delete(SqliteStore.markerOf(file()));

    try (var store = SqliteStore.open(file())) {
      assertThat(store.currentRevision()).isZero();
    }
  }

  @Test
  void aStoreTruncatedInHalfIsRefusedAsDamaged() throws Exception {
    populate();
    long size = Files.size(file());
    try (var raf = new RandomAccessFile(file().toFile(), "rw")) {
      raf.setLength(size / 2 / PAGE * PAGE);
    }
    byte[] before = Files.readAllBytes(file());

    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("damaged", "corrupt"));
    assertThat(Files.readAllBytes(file())).as("a damaged file is left as found").isEqualTo(before);
    assertThat(SqliteStore.check(file()).problems()).isNotEmpty();
  }

  @Test
  void bytesFlippedInTheMiddleAreRefusedNamingSqlitesFindings() throws Exception {
    populate();
    long pages = Files.size(file()) / PAGE;
    try (var raf = new RandomAccessFile(file().toFile(), "rw")) {
      byte[] garbage = new byte[PAGE];
      Arrays.fill(garbage, (byte) 0x5A);
      raf.seek(pages / 2 * PAGE);
      raf.write(garbage);
    }

    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("damaged", "corrupt"));
    assertThat(SqliteStore.check(file()).problems()).isNotEmpty();
  }

  @Test
  void aSoundStorePassesTheFullCheck() {
    populate();
    assertThat(SqliteStore.check(file()).problems()).isEmpty();
  }

  @Test
  void anotherStoresFileIsRefused() throws Exception {
    populate();
    Path other = dir.resolve("other").resolve("store.db");
    try (var store = SqliteStore.open(other)) {
      assertThat(store.currentRevision()).isZero();
    }
    Files.copy(other, file(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    assertThatThrownBy(() -> SqliteStore.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(file().toString())
        .hasMessageContaining("marker");
  }

  @Test
  void evidenceOfAnEarlierClusterRefusesANewStore() throws Exception {
    Path token = dir.resolve("admin.token");
    Files.writeString(token, "abc\n");

    assertThatThrownBy(
            () -> SqliteStore.open(file(), SqliteStore.Options.defaults(), List.of(token)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(token.toString())
        .hasMessageContaining("delete");
    assertThat(SqliteStore.markerOf(file())).doesNotExist();
  }
}
