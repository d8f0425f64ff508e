package dev.quartermaster.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** store.db, its WAL, shared memory and lock are 0600: they hold every object, secrets included. */
class StoreFileModesTest {
  @TempDir Path dir;

  @Test
  void aNewStoreAndItsWalAre0600() throws Exception {
    var file = dir.resolve("store.db");
    try (var store = SqliteStore.open(file)) {
      for (var name : new String[] {"store.db", "store.db-wal", "store.db-shm", "store.db.lock"}) {
        assertThat(mode(dir.resolve(name))).as(name).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void anOlderWideStoreIsTightenedOnOpen() throws Exception {
    var file = dir.resolve("store.db");
    try (var store = SqliteStore.open(file)) {
      // made by an older version: world-readable
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    try (var store = SqliteStore.open(file)) {
      assertThat(mode(file)).isEqualTo("rw-------");
      assertThat(mode(dir.resolve("store.db-wal"))).isEqualTo("rw-------");
    }
  }

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
