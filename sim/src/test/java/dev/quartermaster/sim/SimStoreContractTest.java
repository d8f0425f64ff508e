package dev.quartermaster.sim;

import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.CompactionContract;
import dev.quartermaster.store.KeyValueContract;
import dev.quartermaster.store.Store;
import dev.quartermaster.store.TxnContract;
import dev.quartermaster.store.WatchContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The SimStore against the store contract (all but durability: it is in memory), with prompt
 * watches on real threads.
 */
class SimStoreContractTest
    implements KeyValueContract, TxnContract, WatchContract, CompactionContract {
  private Store store;

  @BeforeEach
  void open() {
    store = new SimStore(new SystemEnv());
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public Store reopenStore() {
    throw new UnsupportedOperationException("in memory");
  }

  @Override
  public void closeStore() {
    store.close();
  }

  @Override
  public Path storeDir() {
    throw new UnsupportedOperationException("in memory");
  }
}
