package dev.quartermaster.agent.checkpoint;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * The journal's durable watermark: how far the journal of a generation was acknowledged as durable
 * (its length, its record count, and the ledger version its last record brought). A torn last frame
 * alone cannot tell "the append never finished" from "acknowledged records were cut off" (a
 * truncation at a frame boundary leaves no trace at all), so after every journal fsync the
 * committer records this, before it acknowledges. Recovery then knows the minimum the journal must
 * hold: anything short of it is lost acknowledged data, named loudly with how many changes are
 * gone; only bytes beyond it may be a torn write.
 *
 * <p>Kept in two places, so that no single lost file hides a loss: the mark file ({@code
 * ledger.journal.mark}) and two slots in the journal's own header ({@link LedgerJournal}). Deleting
 * the mark leaves the journal's header count, which survives a truncation of the journal's tail;
 * deleting or replacing the journal leaves the mark file.
 *
 * <p>Both are written at every commit but fsynced lazily: the mark file at most once per {@code
 * DurableLedger#MARK_SYNC_INTERVAL}, the header slots by the next commit's journal fsync. Either
 * only ever vouches for journal bytes already fsynced, so a copy that reaches the disk late, or not
 * at all, can never vouch for a byte that is not there (no false alarm). A killed agent loses
 * nothing of them (the kernel holds the write); a power cut can leave them behind the acknowledged
 * journal, so recovery then checks less than was acknowledged, never more. One fsync per commit.
 *
 * <p>Two fixed cells per place, written alternately in place (by {@code seq} parity), each slot
 * with its own CRC32C: a crash tearing one leaves the other, older but valid. Big-endian slot
 * (format 2):
 *
 * <pre>
 * "qmak" | seq u64 | generation u64 | length u64 | frames u32 | ledger version u64
 *        | CRC32C u32 of the 40 bytes before it
 * </pre>
 *
 * Format 1 (agents before the header copy) wrote 32-byte slots at 0 and 32 without the magic and
 * the version; they are still read, with the version unknown.
 */
public record JournalMark(
    long seq, long generation, long length, int frames, OptionalLong version) {
  /** Bytes of one slot. */
  public static final int SLOT = 44;

  /** Slots start every CELL bytes (0 and 64): room to grow, and never a slot across two cells. */
  public static final int CELL = 64;

  private static final byte[] MAGIC = "qmak".getBytes(StandardCharsets.US_ASCII);
  private static final int LEGACY_SLOT = 32;

  public JournalMark {
    if (version.isPresent() && version.getAsLong() < 0) {
      throw new IllegalArgumentException("version must be >= 0: " + version);
    }
  }

  /** A mark in the current format, which always knows the ledger version. */
  public JournalMark(long seq, long generation, long length, int frames, long version) {
    this(seq, generation, length, frames, OptionalLong.of(version));
  }

  /** Where this mark's slot starts, relative to the first cell. */
  public long offset() {
    return (seq & 1) * CELL;
  }

  public byte[] encode() {
    var buffer = ByteBuffer.allocate(SLOT);
    buffer
        .put(MAGIC)
        .putLong(seq)
        .putLong(generation)
        .putLong(length)
        .putInt(frames)
        .putLong(
            version.orElseThrow(
                () -> new IllegalStateException("a format-1 mark is never written")));
    buffer.putInt(crc(buffer.array(), 0, SLOT - 4));
    return buffer.array();
  }

  /**
   * The newest valid slot of the two cells starting at {@code from} in {@code bytes}; empty when
   * neither is whole and checksummed. A format-1 mark file is read too, but any valid format-2 slot
   * wins: an upgraded agent writes its slots over the old ones, and what is left of those is from
   * an older generation anyway.
   */
  public static Optional<JournalMark> decode(byte[] bytes, int from) {
    Optional<JournalMark> best = Optional.empty();
    for (int cell = 0; cell < 2; cell++) {
      int at = from + cell * CELL;
      if (at + SLOT > bytes.length
          || !Arrays.equals(bytes, at, at + MAGIC.length, MAGIC, 0, MAGIC.length)
          || crc(bytes, at, SLOT - 4) != ByteBuffer.wrap(bytes).getInt(at + SLOT - 4)) {
        continue;
      }
      var b = ByteBuffer.wrap(bytes, at + MAGIC.length, SLOT - MAGIC.length);
      long seq = b.getLong();
      long generation = b.getLong();
      long length = b.getLong();
      int frames = b.getInt();
      long version = b.getLong();
      if (generation < 0 || length < 0 || frames < 0 || version < 0) {
        continue; // checksummed but impossible: not ours
      }
      best = newer(best, new JournalMark(seq, generation, length, frames, version));
    }
    return best;
  }

  /** {@link #decode(byte[], int)} of a mark file, falling back to its format-1 slots. */
  public static Optional<JournalMark> decode(byte[] bytes) {
    var current = decode(bytes, 0);
    return current.isPresent() ? current : decodeLegacy(bytes);
  }

  private static Optional<JournalMark> decodeLegacy(byte[] bytes) {
    Optional<JournalMark> best = Optional.empty();
    for (int at = 0; at + LEGACY_SLOT <= bytes.length && at <= LEGACY_SLOT; at += LEGACY_SLOT) {
      if (crc(bytes, at, LEGACY_SLOT - 4) != ByteBuffer.wrap(bytes).getInt(at + LEGACY_SLOT - 4)) {
        continue;
      }
      var b = ByteBuffer.wrap(bytes, at, LEGACY_SLOT);
      best =
          newer(
              best,
              new JournalMark(
                  b.getLong(), b.getLong(), b.getLong(), b.getInt(), OptionalLong.empty()));
    }
    return best;
  }

  /** Whichever of the two was written later. */
  public static Optional<JournalMark> newer(Optional<JournalMark> a, JournalMark b) {
    return a.isPresent() && a.get().seq() >= b.seq() ? a : Optional.of(b);
  }

  /**
   * The mark after this one: the next slot, for a journal now {@code length} bytes with {@code
   * frames} frames.
   */
  public JournalMark next(long generation, long length, int frames, long version) {
    return new JournalMark(seq + 1, generation, length, frames, version);
  }

  private static int crc(byte[] bytes, int from, int length) {
    var crc = new CRC32C();
    crc.update(bytes, from, length);
    return (int) crc.getValue();
  }
}
