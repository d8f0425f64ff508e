package dev.quartermaster.agent.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.quartermaster.agent.checkpoint.CorruptCheckpointException.Problem;
import dev.quartermaster.agent.ledger.LedgerChange;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.api.codec.PooledJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * The journal's bytes: the ledger's changes since the last snapshot, appended, one frame per group
 * commit (one fsync). Big-endian, format 2:
 *
 * <pre>
 * header: "qmledgjr" (8) | format version u32 = 2 | generation u64 | boot id length u16 | boot id UTF-8
 *         | CRC32C u32 of all the header bytes before it | zeros to byte 256
 *         | two {@link JournalMark} cells of 64 bytes (the acknowledged count, rewritten in place) | zeros to byte 512
 * frame:  payload length u32 | CRC32C u32 of (the length's 4 bytes, payload) | payload
 * payload (UTF-8 JSON): {"changes":[{"version":7,"put":{…entry as in the snapshot…}},
 *                                   {"version":8,"removed":["uid", …]}]}
 * </pre>
 *
 * <p>Format 1 (read, never written) is the same without the mark cells: its first frame follows the
 * header's CRC. An agent that opens one compacts at once, so the journal it appends to is format 2.
 *
 * <p>One frame per fsync, not per change, so that recovery can tell a torn write from corruption: a
 * frame is appended only after the previous frame's fsync returned, so a bad frame can only be the
 * victim of a crash if nothing valid follows it (then no caller was told it was durable, and it is
 * cut off). A bad frame followed by a valid one means bytes that were acknowledged changed: that is
 * corruption, reported with the file and the byte offset, never skipped. The changes inside carry
 * consecutive ledger versions (each record's sequence), which replay checks, so a lost or repeated
 * frame is caught too. What a valid tail cannot show, that whole records after it were cut off, the
 * acknowledged count in the header's cells (and in the mark file) shows: a tail is only cut as torn
 * when it lies beyond every count found ({@link AcknowledgedRecords}).
 */
public final class LedgerJournal {
  static final byte[] MAGIC = "qmledgjr".getBytes(StandardCharsets.US_ASCII);
  public static final int VERSION = 2;

  /** The format before the header's mark cells: read (and compacted away), never written. */
  public static final int LEGACY_VERSION = 1;

  /** Where the header's two mark cells start, in format 2. */
  public static final int MARK_CELLS_AT = 256;

  /**
   * Where the first frame starts, in format 2: the mark cells never share a disk sector with a
   * frame.
   */
  public static final int FIRST_FRAME = 512;

  /** The longest boot id a format-2 header holds (a boot id is a 36-character UUID). */
  static final int MAX_BOOT_ID = MARK_CELLS_AT - (8 + 4 + 8 + 2 + 4);

  /**
   * Larger than any frame we write (a frame holds one commit's changes); a larger length is damage.
   */
  static final int MAX_FRAME = 64 << 20;

  private static final int FRAME_HEADER = 8;

  private static final ObjectMapper JSON = PooledJson.mapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private LedgerJournal() {}

  /**
   * The header of a journal that continues the snapshot naming {@code generation}: its format, and
   * where its first frame starts ({@code length}). {@code acknowledged} is the newest valid mark in
   * its cells (format 2); empty for format 1 or before the first commit wrote one.
   */
  public record Header(
      int format, long generation, String bootId, int length, Optional<JournalMark> acknowledged) {
    public Header {
      Objects.requireNonNull(bootId, "bootId");
      Objects.requireNonNull(acknowledged, "acknowledged");
    }
  }

  /** One valid frame: where it starts and the changes it holds. */
  public record Frame(long offset, List<LedgerChange> changes) {
    public Frame {
      changes = List.copyOf(changes);
    }
  }

  /**
   * What a read found: the valid frames, and where they end ({@code validEnd < size}: a torn tail).
   */
  public record Scan(Header header, List<Frame> frames, long validEnd, long size) {
    public Scan {
      frames = List.copyOf(frames);
    }

    public boolean torn() {
      return validEnd < size;
    }

    public int changes() {
      return frames.stream().mapToInt(f -> f.changes().size()).sum();
    }

    /** The ledger version of the last change in a valid frame; empty when no frame holds one. */
    public OptionalLong lastVersion() {
      for (int i = frames.size() - 1; i >= 0; i--) {
        var changes = frames.get(i).changes();
        if (!changes.isEmpty()) {
          return OptionalLong.of(changes.getLast().version());
        }
      }
      return OptionalLong.empty();
    }
  }

  /**
   * The header bytes for a new journal of {@code generation} on boot {@code bootId}; its mark cells
   * are empty until the first mark is written into them.
   */
  public static byte[] header(long generation, String bootId) {
    var id = bootId.getBytes(StandardCharsets.UTF_8);
    if (id.length > MAX_BOOT_ID) {
      throw new IllegalArgumentException(
          "boot id longer than " + MAX_BOOT_ID + " bytes: " + bootId);
    }
    var buffer = ByteBuffer.allocate(FIRST_FRAME);
    buffer.put(MAGIC).putInt(VERSION).putLong(generation).putShort((short) id.length).put(id);
    var crc = new CRC32C();
    crc.update(buffer.array(), 0, buffer.position());
    buffer.putInt((int) crc.getValue());
    return buffer.array();
  }

  /** Where {@code mark} goes in a format-2 journal: one of the header's two cells. */
  public static long markOffset(JournalMark mark) {
    return MARK_CELLS_AT + mark.offset();
  }

  /** One frame holding {@code changes} (in version order). */
  public static byte[] frame(List<LedgerChange> changes) {
    var array = NODES.arrayNode();
    for (var change : changes) {
      var node = array.addObject();
      node.put("version", change.version());
      switch (change) {
        case LedgerChange.Put put -> node.set("put", CheckpointCodec.encodeEntry(put.entry()));
        case LedgerChange.Removed removed -> removed.uids().forEach(node.putArray("removed")::add);
      }
    }
    var top = NODES.objectNode();
    top.set("changes", array);
    byte[] payload;
    try {
      payload = JSON.writeValueAsBytes(top);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode journal frame", e);
    }
    var buffer = ByteBuffer.allocate(FRAME_HEADER + payload.length);
    buffer.putInt(payload.length).putInt(0).put(payload);
    var bytes = buffer.array();
    ByteBuffer.wrap(bytes).putInt(4, crc(bytes, 0, payload.length));
    return bytes;
  }

  /**
   * Reads and verifies {@code bytes} from {@code location}; see the class comment for the torn-tail
   * rule.
   */
  public static Scan scan(byte[] bytes, String location) throws CorruptCheckpointException {
    var header = readHeader(bytes, location);
    var frames = new ArrayList<Frame>();
    int offset = header.length();
    while (offset < bytes.length) {
      int length = validFrameLength(bytes, offset);
      if (length < 0) {
        var later = nextValidFrame(bytes, offset + 1);
        if (later.isPresent()) {
          throw new CorruptCheckpointException(
              location,
              Problem.CHECKSUM_MISMATCH,
              "the journal record at byte offset "
                  + offset
                  + " is cut short or fails its CRC32C check, yet a valid record follows at byte offset "
                  + later.getAsLong()
                  + ": records that were acknowledged as durable changed on disk (not a torn write,"
                  + " which can only be the last record)");
        }
        return new Scan(header, frames, offset, bytes.length);
      }
      frames.add(new Frame(offset, decodeFrame(bytes, offset, length, location)));
      offset += FRAME_HEADER + length;
    }
    return new Scan(header, frames, offset, bytes.length);
  }

  /**
   * {@code base} (the snapshot) with every change of {@code scan} applied. The first change must
   * carry the version after the snapshot's and each the one after its predecessor; the result must
   * hold no device twice.
   */
  public static LedgerState replay(LedgerState base, Scan scan, String location)
      throws CorruptCheckpointException {
    var claims = new HashMap<>(base.claims());
    long version = base.version();
    for (var frame : scan.frames()) {
      for (var change : frame.changes()) {
        if (change.version() != version + 1) {
          throw new CorruptCheckpointException(
              location,
              Problem.INVALID_CONTENT,
              "the journal record at byte offset "
                  + frame.offset()
                  + " holds ledger version "
                  + change.version()
                  + " where version "
                  + (version + 1)
                  + " comes next (a change is missing or repeated)");
        }
        switch (change) {
          case LedgerChange.Put put -> claims.put(put.entry().claim().uid(), put.entry());
          case LedgerChange.Removed removed -> removed.uids().forEach(claims::remove);
        }
        version = change.version();
      }
    }
    var state = new LedgerState(claims, version);
    var doubleHeld = state.doubleHeld();
    if (doubleHeld.isPresent()) {
      throw new CorruptCheckpointException(
          location, Problem.INVALID_CONTENT, "after replaying the journal, " + doubleHeld.get());
    }
    return state;
  }

  private static Header readHeader(byte[] bytes, String location)
      throws CorruptCheckpointException {
    int fixed = MAGIC.length + 4 + 8 + 2;
    if (bytes.length < fixed + 4
        || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new CorruptCheckpointException(
          location,
          Problem.NOT_A_LEDGER,
          "the file does not start with a ledger journal header (\"qmledgjr\")");
    }
    var buffer = ByteBuffer.wrap(bytes);
    int format = buffer.getInt(MAGIC.length);
    if (format != VERSION && format != LEGACY_VERSION) {
      throw new CorruptCheckpointException(
          location,
          Problem.UNSUPPORTED_VERSION,
          "journal format version "
              + format
              + " is not supported by this agent (it reads versions "
              + LEGACY_VERSION
              + " and "
              + VERSION
              + ")");
    }
    long generation = buffer.getLong(MAGIC.length + 4);
    int idLength = Short.toUnsignedInt(buffer.getShort(MAGIC.length + 12));
    int length = fixed + idLength + 4;
    if (bytes.length < length) {
      throw new CorruptCheckpointException(
          location, Problem.MALFORMED, "the journal header is cut short");
    }
    var crc = new CRC32C();
    crc.update(bytes, 0, length - 4);
    if ((int) crc.getValue() != buffer.getInt(length - 4)) {
      throw new CorruptCheckpointException(
          location, Problem.CHECKSUM_MISMATCH, "the journal header fails its CRC32C check");
    }
    var bootId = new String(bytes, fixed, idLength, StandardCharsets.UTF_8);
    if (format == LEGACY_VERSION) {
      return new Header(format, generation, bootId, length, Optional.empty());
    }
    if (length > MARK_CELLS_AT) {
      throw new CorruptCheckpointException(
          location,
          Problem.MALFORMED,
          "the journal header's boot id runs into its" + " mark cells at byte " + MARK_CELLS_AT);
    }
    // The whole header region, mark cells included, is written by one atomic replace: a crash never
    // leaves part of it, so a shorter file lost bytes after the fact.
    if (bytes.length < FIRST_FRAME) {
      throw new CorruptCheckpointException(
          location,
          Problem.MALFORMED,
          "the journal is "
              + bytes.length
              + " bytes, shorter than its "
              + FIRST_FRAME
              + "-byte header (it holds the acknowledged count): truncated");
    }
    var acknowledged = JournalMark.decode(bytes, MARK_CELLS_AT);
    if (acknowledged.isPresent() && acknowledged.get().generation() != generation) {
      throw new CorruptCheckpointException(
          location,
          Problem.INVALID_CONTENT,
          "the acknowledged count in the journal"
              + " header names generation "
              + acknowledged.get().generation()
              + ", but the header is generation "
              + generation);
    }
    return new Header(format, generation, bootId, FIRST_FRAME, acknowledged);
  }

  /**
   * The payload length of the frame at {@code offset} if it is whole and its CRC matches; else -1.
   */
  private static int validFrameLength(byte[] bytes, int offset) {
    if (bytes.length - offset < FRAME_HEADER) {
      return -1;
    }
    var buffer = ByteBuffer.wrap(bytes);
    int length = buffer.getInt(offset);
    if (length <= 0 || length > MAX_FRAME || length > bytes.length - offset - FRAME_HEADER) {
      return -1;
    }
    return crc(bytes, offset, length) == buffer.getInt(offset + 4) ? length : -1;
  }

  private static OptionalLong nextValidFrame(byte[] bytes, int from) {
    for (int at = from; at + FRAME_HEADER < bytes.length; at++) {
      if (validFrameLength(bytes, at) >= 0) {
        return OptionalLong.of(at);
      }
    }
    return OptionalLong.empty();
  }

  /** CRC32C of a frame's length field and payload. */
  private static int crc(byte[] bytes, int offset, int length) {
    var crc = new CRC32C();
    crc.update(bytes, offset, 4);
    crc.update(bytes, offset + FRAME_HEADER, length);
    return (int) crc.getValue();
  }

  private static List<LedgerChange> decodeFrame(
      byte[] bytes, int offset, int length, String location) throws CorruptCheckpointException {
    var at = "the journal record at byte offset " + offset;
    try {
      var top = JSON.readTree(bytes, offset + FRAME_HEADER, length);
      var changes = top == null ? null : top.get("changes");
      if (changes == null || !changes.isArray()) {
        throw new CheckpointCodec.InvalidContent(at + " has no \"changes\" array");
      }
      var out = new ArrayList<LedgerChange>();
      for (int i = 0; i < changes.size(); i++) {
        out.add(decodeChange(changes.get(i), at + ", change " + i));
      }
      return out;
    } catch (IOException e) {
      throw new CorruptCheckpointException(
          location,
          Problem.MALFORMED,
          at + " passes its CRC32C check but is not" + " valid JSON",
          e);
    } catch (CheckpointCodec.InvalidContent e) {
      throw new CorruptCheckpointException(location, Problem.INVALID_CONTENT, e.getMessage());
    }
  }

  private static LedgerChange decodeChange(JsonNode node, String at)
      throws CheckpointCodec.InvalidContent {
    var version = node.path("version");
    if (!version.isIntegralNumber() || !version.canConvertToLong() || version.asLong() <= 0) {
      throw new CheckpointCodec.InvalidContent(at + ": \"version\" must be an integer > 0");
    }
    var put = node.get("put");
    if (put != null) {
      return new LedgerChange.Put(version.asLong(), CheckpointCodec.decodeEntry(put, at + ".put"));
    }
    var removed = node.get("removed");
    if (removed != null && removed.isArray()) {
      var uids = new ArrayList<String>();
      for (var uid : removed) {
        if (!uid.isTextual()) {
          throw new CheckpointCodec.InvalidContent(at + ".removed must be an array of strings");
        }
        uids.add(uid.asText());
      }
      return new LedgerChange.Removed(version.asLong(), uids);
    }
    throw new CheckpointCodec.InvalidContent(at + " is neither a \"put\" nor a \"removed\"");
  }
}
