package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The journal as a real file. Appends go through one channel kept open, and {@link #force} is
 * {@code fdatasync} ({@code force(false)}): it makes the appended bytes durable and the file's new
 * size with them (the metadata needed to read them back), and skips only the modification time,
 * which nothing reads. The mark is rewritten in place, so its {@code fdatasync} has no metadata to
 * commit, only the block; so is the mark's copy in the journal's header, which the next {@code
 * force} makes durable with the next append. A new generation replaces the file the way the
 * snapshot is replaced (temp file, fsync, rename, fsync of the directory), so a journal header is
 * never torn.
 */
public final class FileJournal implements JournalFile {
  private final Path path;
  private final Path temp;
  private final Path mark;

  /** The mark file, open from the first mark written; only the committing caller touches it. */
  private FileChannel markChannel;

  /**
   * Open from the first append until the file is replaced; only the committing caller touches it.
   */
  private FileChannel channel;

  public FileJournal(Path path) {
    this.path = path.toAbsolutePath();
    this.temp = this.path.resolveSibling("." + this.path.getFileName() + ".tmp");
    this.mark = this.path.resolveSibling(this.path.getFileName() + ".mark");
  }

  public Path path() {
    return path;
  }

  @Override
  public String location() {
    return path.toString();
  }

  @Override
  public Optional<byte[]> read() throws IOException {
    try {
      return Optional.of(Files.readAllBytes(path));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public String markLocation() {
    return mark.toString();
  }

  @Override
  public Optional<byte[]> readMark() throws IOException {
    try {
      return Optional.of(Files.readAllBytes(mark));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public void writeMark(JournalMark next) throws IOException {
    if (markChannel == null || !markChannel.isOpen()) {
      boolean created = !Files.exists(mark);
      markChannel =
          FileChannel.open(
              mark,
              java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
              dev.quartermaster.core.files.OwnerOnly.fileAttribute(mark));
      if (created) {
        // The new name must be durable too, or a power cut could lose the whole mark file.
        AtomicLedgerFile.fsyncDirectory(mark.getParent());
      }
    }
    var buffer = ByteBuffer.wrap(next.encode());
    long at = next.offset();
    while (buffer.hasRemaining()) {
      at += markChannel.write(buffer, at);
    }
  }

  @Override
  public void writeHeaderMark(JournalMark next) throws IOException {
    var ch = channel();
    var buffer = ByteBuffer.wrap(next.encode());
    long at = LedgerJournal.markOffset(next);
    while (buffer.hasRemaining()) {
      at += ch.write(buffer, at); // positional: the append position stays at the end
    }
  }

  @Override
  public void forceMark() throws IOException {
    if (markChannel != null && markChannel.isOpen()) {
      markChannel.force(false);
    }
  }

  @Override
  public void replace(byte[] content) throws IOException {
    // The old channel points at the file the rename replaces; appends must go to the new one.
    closeChannel();
    AtomicLedgerFile.writeAtomically(path, temp, content);
  }

  @Override
  public void append(byte[] bytes) throws IOException {
    var ch = channel();
    var buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      ch.write(buffer);
    }
  }

  @Override
  public void force() throws IOException {
    channel().force(false);
  }

  @Override
  public void truncate(long size) throws IOException {
    var ch = channel();
    ch.truncate(size);
    ch.position(size);
    ch.force(true);
  }

  private FileChannel channel() throws IOException {
    if (channel == null || !channel.isOpen()) {
      channel = FileChannel.open(path, StandardOpenOption.WRITE);
      channel.position(channel.size());
    }
    return channel;
  }

  private void closeChannel() throws IOException {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }
}
