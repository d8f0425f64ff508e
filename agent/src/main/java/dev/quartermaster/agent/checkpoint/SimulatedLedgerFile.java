package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.util.Optional;

/**
 * A ledger file in memory with a crash model: what was written but not yet synced is lost on
 * {@link #crash}. By default every {@link #write} is synced before it returns, as the real file's;
 * {@link #failNextWrites} makes writes throw before they sync (the crash-in-the-middle case), and
 * {@link #holdUnsynced} keeps the next writes unsynced until {@link #sync}, for a simulation that
 * crashes between a write and its fsync.
 */
public final class SimulatedLedgerFile implements LedgerFile {
  private Optional<byte[]> durable = Optional.empty();
  private Optional<byte[]> unsynced = Optional.empty();
  private int failures;
  private boolean hold;
  private long writes;

  @Override
  public String location() {
    return "simulated:ledger.json";
  }

  @Override
  public synchronized Optional<byte[]> read() {
    return unsynced.or(() -> durable).map(byte[]::clone);
  }

  @Override
  public synchronized void write(byte[] bytes) throws IOException {
    if (failures > 0) {
      failures--;
      throw new IOException("simulated: write failed before fsync");
    }
    writes++;
    unsynced = Optional.of(bytes.clone());
    if (!hold) {
      sync();
    }
  }

  /** Makes the last write durable. */
  public synchronized void sync() {
    unsynced.ifPresent(b -> durable = Optional.of(b));
    unsynced = Optional.empty();
  }

  /** Loses every unsynced write, as a power cut or kill -9 before fsync would. */
  public synchronized void crash() {
    unsynced = Optional.empty();
  }

  /** Makes the next {@code n} writes fail. */
  public synchronized void failNextWrites(int n) {
    failures = n;
  }

  /** While on, writes stay unsynced until {@link #sync}. */
  public synchronized void holdUnsynced(boolean on) {
    hold = on;
  }

  /** Writes that succeeded. */
  public synchronized long writes() {
    return writes;
  }

  /** The durable bytes, if any (what a restart after a crash would read). */
  public synchronized Optional<byte[]> durable() {
    return durable.map(byte[]::clone);
  }
}
