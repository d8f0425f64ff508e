package dev.quartermaster.store.sqlite;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The CRC32C kept beside each log row (its {@code checksum} column), written in the row's own
 * insert and compared on every read of the row. It covers everything a read hands on, not only the
 * value: a changed byte in the key would serve a value under another name, one in the deleted flag
 * would hide an object, one in a revision would break compare-and-set. Rows are never updated
 * (compaction only deletes), so the checksum stays right for the row's whole life.
 */
final class RowChecksum {
  /** revision, deleted, create_revision, version, prev_revision, the key's length. */
  private static final int HEADER = Long.BYTES + 1 + 3 * Long.BYTES + Integer.BYTES;

  private RowChecksum() {}

  /**
   * The checksum of {@code row}, whose key is stored as {@code key} (the bytes as kept, not
   * re-encoded).
   */
  static long of(LogRow row, byte[] key) {
    ByteBuffer header =
        ByteBuffer.allocate(HEADER)
            .putLong(row.revision())
            .put((byte) (row.deleted() ? 1 : 0))
            .putLong(row.createRevision())
            .putLong(row.version())
            .putLong(row.prevRevision())
            .putInt(key.length) // so a byte cannot move between key and value unnoticed
            .flip();
    CRC32C crc = new CRC32C();
    crc.update(header);
    crc.update(key);
    crc.update(row.value());
    return crc.getValue();
  }
}
