package dev.quartermaster.agent.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The ledger's on-disk state, as any bytes: a valid recovery, or a {@link
 * CorruptCheckpointException} naming the file and the problem. Never a silent reset (an empty
 * ledger where a snapshot exists), never another throwable.
 *
 * <p>Checksums would stop almost every mutation at the door, so the inputs can ask for them to be
 * recomputed ("resealed") after the mutation: then the content checks behind them get fuzzed too.
 */
class LedgerFuzzTest {
  private static final String LOCATION = "/var/lib/qm/agent/ledger.json";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DIR = tempDir();

  /** One snapshot file, as it is and with its checksum recomputed. */
  @FuzzTest
  void snapshot(byte[] bytes) {
    checkSnapshot(bytes);
    reseal(bytes).ifPresent(LedgerFuzzTest::checkSnapshot);
  }

  private static void checkSnapshot(byte[] bytes) {
    Checkpoint decoded;
    try {
      decoded = CheckpointCodec.decode(bytes, LOCATION);
    } catch (CorruptCheckpointException e) {
      assertNamed(e, List.of(LOCATION));
      return;
    }
    assertThat(decoded.formatVersion()).isEqualTo(CheckpointCodec.VERSION);
    assertThat(decoded.state().doubleHeld()).isEmpty();
    // What was read is written back the same: the agent's next snapshot loses nothing.
    var again =
        decodeOrFail(
            CheckpointCodec.encode(decoded.state(), decoded.bootId(), decoded.journalGeneration()));
    assertThat(again).isEqualTo(decoded);
  }

  /**
   * A snapshot, its journal and the journal's mark as files: flags (byte 0: bit 0 snapshot, 1
   * journal, 2 mark exist; bit 3 reseal the snapshot, 4 the journal's CRCs, 5 the mark's), then the
   * snapshot and the journal, each after a big-endian u16 length, then the mark.
   */
  @FuzzTest
  void recovery(byte[] bytes) throws IOException {
    var in = ByteBuffer.wrap(bytes);
    int flags = in.hasRemaining() ? in.get() : 0;
    var snapshot = section(in);
    var journal = section(in);
    var mark = new byte[in.remaining()];
    in.get(mark);
    if ((flags & 8) != 0) {
      snapshot = reseal(snapshot).orElse(snapshot);
    }
    if ((flags & 16) != 0) {
      resealJournal(journal);
    }
    if ((flags & 32) != 0) {
      resealMark(mark);
    }
    var file = new AtomicLedgerFile(DIR.resolve("ledger.json"));
    var journalFile = (FileJournal) file.journal().orElseThrow();
    var markPath = Path.of(journalFile.markLocation());
    put(file.path(), (flags & 1) != 0 ? snapshot : null);
    put(journalFile.path(), (flags & 2) != 0 ? journal : null);
    put(markPath, (flags & 4) != 0 ? mark : null);

    Optional<LedgerRecovery.Recovered> found;
    try {
      found = LedgerRecovery.read(file);
    } catch (CorruptCheckpointException e) {
      assertNamed(e, List.of(file.location(), journalFile.location(), markPath.toString()));
      return;
    }
    if ((flags & 1) != 0) {
      assertThat(found)
          .as("a snapshot exists: an empty ledger would be a silent reset")
          .isPresent();
    } else {
      // Nothing to start from is fine only where nothing was ever committed: no journal, no valid
      // mark.
      assertThat(found).isEmpty();
      assertThat((flags & 2) == 0).as("a journal without its snapshot").isTrue();
      assertThat(JournalMark.decode((flags & 4) != 0 ? mark : new byte[0]))
          .as("a mark without a snapshot")
          .isEmpty();
      return;
    }
    var recovered = found.get();
    assertThat(recovered.state().doubleHeld()).isEmpty();
    assertThat(recovered.state().version())
        .isGreaterThanOrEqualTo(recovered.snapshot().state().version());
    if (recovered.journal() instanceof LedgerRecovery.JournalStatus.Replayed replayed) {
      assertThat(replayed.scan().validEnd())
          .isBetween((long) replayed.scan().header().length(), replayed.scan().size());
      // Each count found, the mark file's and the journal header's, is held up: no truncation hides
      // behind the other.
      for (var m :
          java.util.stream.Stream.of(recovered.mark(), recovered.headerMark())
              .flatMap(Optional::stream)
              .toList()) {
        if (m.generation() == recovered.snapshot().journalGeneration()) {
          assertThat(replayed.scan().validEnd())
              .as("acknowledged records are all there")
              .isGreaterThanOrEqualTo(m.length());
          assertThat(replayed.scan().frames().size()).isGreaterThanOrEqualTo(m.frames());
        }
      }
    }
  }

  private static void assertNamed(CorruptCheckpointException e, List<String> files) {
    assertThat(e.problem()).isNotNull();
    assertThat(e.location()).isIn(files);
    assertThat(e.getMessage()).contains(e.location()).contains(e.problem().name());
  }

  private static Checkpoint decodeOrFail(byte[] bytes) {
    try {
      return CheckpointCodec.decode(bytes, LOCATION);
    } catch (CorruptCheckpointException e) {
      throw new AssertionError("the agent cannot read back what it wrote: " + e.getMessage(), e);
    }
  }

  /** {@code bytes} with the checksum recomputed over the rest, if they are a JSON object at all. */
  private static Optional<byte[]> reseal(byte[] bytes) {
    try {
      if (!(JSON.readTree(bytes) instanceof ObjectNode top)) {
        return Optional.empty();
      }
      top.remove("checksum");
      top.put("checksum", CheckpointCodec.checksum(top));
      return Optional.of(JSON.writeValueAsBytes(top));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Recomputes the header's CRC, its mark cells' (format 2) and each frame's, as far as the lengths
   * lead.
   */
  private static void resealJournal(byte[] bytes) {
    int fixed = LedgerJournal.MAGIC.length + 4 + 8 + 2;
    if (bytes.length < fixed + 4) {
      return;
    }
    var buffer = ByteBuffer.wrap(bytes);
    int header = fixed + Short.toUnsignedInt(buffer.getShort(LedgerJournal.MAGIC.length + 12)) + 4;
    if (bytes.length < header) {
      return;
    }
    var crc = new CRC32C();
    crc.update(bytes, 0, header - 4);
    buffer.putInt(header - 4, (int) crc.getValue());
    int at = header;
    if (buffer.getInt(LedgerJournal.MAGIC.length) == LedgerJournal.VERSION) {
      resealMarkCells(bytes, LedgerJournal.MARK_CELLS_AT);
      at = LedgerJournal.FIRST_FRAME;
    }
    while (bytes.length - at >= 8) {
      int length = buffer.getInt(at);
      if (length <= 0 || length > bytes.length - at - 8) {
        return;
      }
      var frame = new CRC32C();
      frame.update(bytes, at, 4);
      frame.update(bytes, at + 8, length);
      buffer.putInt(at + 4, (int) frame.getValue());
      at += 8 + length;
    }
  }

  private static void resealMark(byte[] bytes) {
    resealMarkCells(bytes, 0);
  }

  private static void resealMarkCells(byte[] bytes, int from) {
    for (int cell = 0; cell < 2; cell++) {
      int at = from + cell * JournalMark.CELL;
      if (at + JournalMark.SLOT > bytes.length) {
        return;
      }
      var crc = new CRC32C();
      crc.update(bytes, at, JournalMark.SLOT - 4);
      ByteBuffer.wrap(bytes).putInt(at + JournalMark.SLOT - 4, (int) crc.getValue());
    }
  }

  private static byte[] section(ByteBuffer in) {
    int length =
        in.remaining() >= 2 ? Math.min(Short.toUnsignedInt(in.getShort()), in.remaining()) : 0;
    var out = new byte[length];
    in.get(out);
    return out;
  }

  private static void put(Path path, byte[] content) throws IOException {
    if (content == null) {
      Files.deleteIfExists(path);
    } else {
      Files.write(path, content);
    }
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("qm-ledger-fuzz");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] container(int flags, byte[] snapshot, byte[] journal, byte[] mark) {
    var out = ByteBuffer.allocate(1 + 2 + snapshot.length + 2 + journal.length + mark.length);
    out.put((byte) flags)
        .putShort((short) snapshot.length)
        .put(snapshot)
        .putShort((short) journal.length)
        .put(journal)
        .put(mark);
    return Arrays.copyOf(out.array(), out.position());
  }
}
