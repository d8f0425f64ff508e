package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.util.Optional;

/**
 * The ledger's append-only journal file ({@link LedgerJournal} says what goes in it). Real: {@link
 * FileJournal}. Simulated: {@link SimulatedLedgerFile#journal()}, where appends not yet forced are
 * lost on a crash. Only one writer at a time: {@link DurableLedger} serializes every call but
 * {@link #read}.
 */
public interface JournalFile {

  /** Where it is, for messages. */
  String location();

  /**
   * Everything in it now (a reader racing an append may see a torn tail); empty if there is no
   * journal.
   */
  Optional<byte[]> read() throws IOException;

  /**
   * Replaces the whole content with {@code content}, atomically and durably (a new generation's
   * header).
   */
  void replace(byte[] content) throws IOException;

  /** Appends {@code bytes} at the end; durable only once {@link #force} returns. */
  void append(byte[] bytes) throws IOException;

  /** Makes every append so far durable (fsync). */
  void force() throws IOException;

  /** Where the durable mark ({@link JournalMark}) is kept, for messages. */
  String markLocation();

  /**
   * The mark file's bytes; empty if there is none (a journal from before marks, or never
   * committed).
   */
  Optional<byte[]> readMark() throws IOException;

  /** Writes one mark slot in place; durable once {@link #forceMark} returns. */
  void writeMark(JournalMark mark) throws IOException;

  /**
   * Writes {@code mark} into its cell in the journal's own header ({@link
   * LedgerJournal#markOffset}), in place: the second copy of the acknowledged count. Like an
   * append, durable once {@link #force} returns.
   */
  void writeHeaderMark(JournalMark mark) throws IOException;

  /** Makes every mark written so far durable (fdatasync). */
  void forceMark() throws IOException;

  /**
   * Cuts the content to its first {@code size} bytes, durably (drops a torn tail before appending
   * again).
   */
  void truncate(long size) throws IOException;
}
