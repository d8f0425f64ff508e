package dev.quartermaster.agent.checkpoint;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The journal's durable watermark: how far the journal of a generation was acknowledged as durable.
 * A torn last frame alone cannot tell "the append never finished" from "acknowledged records were
 * cut off" (a truncation at a frame boundary leaves no trace at all), so after every journal fsync
 * the committer records the journal's length and frame count here, in a separate file, before it
 * acknowledges. Recovery then knows the minimum the journal must hold: anything short of it is
 * lost acknowledged data, named loudly; only bytes beyond it may be a torn write.
 *
 * <p>The mark is written at every commit but fsynced at most once per {@code
 * DurableLedger#MARK_SYNC_INTERVAL}: it only ever vouches for journal bytes already fsynced, so a
 * mark that reaches the disk late, or not at all, can never vouch for a byte that is not there
 * (no false alarm). A killed agent loses nothing of it (the kernel holds the write); a power cut
 * can leave it behind the acknowledged journal by up to that interval, so recovery then checks
 * less than was acknowledged, never more. One fsync per commit instead of two.
 *
 * <p>Two fixed slots, written alternately in place (by {@code seq} parity), each with its own
 * CRC32C: a crash tearing one slot leaves the other, older but valid. Big-endian slot:
 *
 * <pre>
 * seq u64 | generation u64 | length u64 | frames u32 | CRC32C u32 of the 28 bytes before it
 * </pre>
 */
public record JournalMark(long seq, long generation, long length, int frames) {
  public static final int SLOT = 32;

  /** Where this mark's slot starts in the mark file. */
  public long offset() {
    return (seq & 1) * SLOT;
  }

  public byte[] encode() {
    var buffer = ByteBuffer.allocate(SLOT);
    buffer.putLong(seq).putLong(generation).putLong(length).putInt(frames);
    buffer.putInt(crc(buffer.array()));
    return buffer.array();
  }

  /** The newest valid slot in {@code bytes}; empty when neither slot is whole and checksummed. */
  public static Optional<JournalMark> decode(byte[] bytes) {
    Optional<JournalMark> best = Optional.empty();
    for (int at = 0; at + SLOT <= bytes.length && at <= SLOT; at += SLOT) {
      var slot = ByteBuffer.wrap(bytes, at, SLOT).slice();
      var copy = new byte[SLOT];
      slot.get(copy);
      if (crc(copy) != ByteBuffer.wrap(copy).getInt(SLOT - 4)) {
        continue;
      }
      var b = ByteBuffer.wrap(copy);
      var mark = new JournalMark(b.getLong(), b.getLong(), b.getLong(), b.getInt());
      if (best.isEmpty() || mark.seq() > best.get().seq()) {
        best = Optional.of(mark);
      }
    }
    return best;
  }

  /** The mark after this one: the next slot, for a journal now {@code length} bytes with {@code frames} frames. */
  public JournalMark next(long generation, long length, int frames) {
    return new JournalMark(seq + 1, generation, length, frames);
  }

  private static int crc(byte[] slot) {
    var crc = new CRC32C();
    crc.update(slot, 0, SLOT - 4);
    return (int) crc.getValue();
  }
}
