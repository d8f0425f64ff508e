package dev.quartermaster.store;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every {@link Store} implementation passes. An implementation's test extends this
 * class and says how to open its store; the tests themselves live in the contract interfaces this
 * class implements, one per topic, so each stays readable.
 *
 * <p>The tests are deterministic: no sleeps and no timing assertions. They wait for what must
 * happen with a generous bound ({@link StoreFixture#AWAIT}) that only a real hang exceeds, and show
 * that something did <em>not</em> happen by waiting for a later sentinel event instead.
 *
 * <p>The durability test runs {@link CrashWriter} in a child JVM, which instantiates the concrete
 * subclass reflectively and calls {@link #reopen}: subclasses need a no-argument constructor.
 */
public abstract class StoreContractTest
    implements KeyValueContract,
        TxnContract,
        WatchContract,
        CompactionContract,
        DurabilityContract {

  private Path dir;
  private Store store;

  /** Opens a new, empty store keeping its data under {@code dir} (an empty directory). */
  protected abstract Store openStore(Path dir);

  /** Opens the store whose data {@link #openStore} put under {@code dir}, keeping that data. */
  protected abstract Store reopen(Path dir);

  /**
   * Called after each test, once its store is closed: stops whatever {@link #openStore} started for
   * {@code dir} (an etcd process). Left running, 35 tests' worth of etcd members starve a small
   * machine's CPU until their elections flap and a later test's writes stall.
   */
  protected void discard(Path dir) {}

  @BeforeEach
  final void openFixture(@TempDir Path dir) {
    this.dir = dir;
    this.store = openStore(dir);
  }

  @AfterEach
  final void closeFixture() {
    try {
      closeStore();
    } finally {
      discard(dir);
    }
  }

  @Override
  public final Store store() {
    if (store == null) {
      throw new IllegalStateException("the store under test is closed");
    }
    return store;
  }

  @Override
  public final Store reopenStore() {
    closeStore();
    store = reopen(dir);
    return store;
  }

  @Override
  public final void closeStore() {
    if (store != null) {
      Store s = store;
      store = null;
      s.close();
    }
  }

  @Override
  public final Path storeDir() {
    return dir;
  }
}
