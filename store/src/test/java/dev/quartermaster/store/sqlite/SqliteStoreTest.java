package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.Store;
import dev.quartermaster.store.StoreContractTest;
import java.nio.file.Path;

/** The SQLite store against the store contract. */
class SqliteStoreTest extends StoreContractTest {
  static Path file(Path dir) {
    return dir.resolve("store.db");
  }

  @Override
  protected Store openStore(Path dir) {
    return SqliteStore.open(file(dir));
  }

  @Override
  protected Store reopen(Path dir) {
    return SqliteStore.open(file(dir));
  }
}
