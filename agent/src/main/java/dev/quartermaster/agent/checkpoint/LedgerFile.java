package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.util.Optional;

/**
 * The ledger's durable snapshot file (and, through {@link #journal}, the journal beside it). Real:
 * {@link AtomicLedgerFile} (temp file, fsync, rename, fsync of the directory). Simulated: {@link
 * SimulatedLedgerFile}, where writes not yet synced are lost on a crash.
 */
public interface LedgerFile {

  /** Where it is, for messages. */
  String location();

  /** The last durably written bytes; empty if nothing was ever written. */
  Optional<byte[]> read() throws IOException;

  /**
   * Replaces the content with {@code bytes}, atomically and durably: when this returns, a crash at
   * any later point leaves exactly {@code bytes}; if it throws, the old content or the new one.
   */
  void write(byte[] bytes) throws IOException;

  /**
   * The journal that continues this snapshot, if this file has one. Without one, {@link
   * DurableLedger} rewrites the whole snapshot on every commit (the original behaviour).
   */
  default Optional<JournalFile> journal() {
    return Optional.empty();
  }
}
