package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.core.files.TempFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * A file replaced atomically: write a temp file in the same directory, fsync it, rename it over the
 * target, fsync the directory. A crash leaves either the old file or the new one, never a mix, and
 * once {@link #write} returns the rename itself is on disk. (NVIDIA's checkpoint skips the
 * directory fsync, so a crash right after "success" could bring the old file back.)
 *
 * <p>One writer at a time: the agent holds the state-directory lock, and writes are serialized by
 * {@link DurableLedger}.
 */
public final class AtomicLedgerFile implements LedgerFile {
  private final Path path;
  private final Path temp;
  private final FileJournal journal;

  public AtomicLedgerFile(Path path) {
    this.path = path.toAbsolutePath();
    // A leading dot and no .json suffix: nothing that scans the directory mistakes it for the real
    // file.
    this.temp = this.path.resolveSibling("." + this.path.getFileName() + ".tmp");
    this.journal = new FileJournal(journalPath(this.path));
  }

  /** The journal beside snapshot {@code snapshot}: {@code ledger.json} → {@code ledger.journal}. */
  public static Path journalPath(Path snapshot) {
    var name = snapshot.getFileName().toString();
    var stem = name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
    return snapshot.resolveSibling(stem + ".journal");
  }

  @Override
  public Optional<JournalFile> journal() {
    return Optional.of(journal);
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
  public void write(byte[] bytes) throws IOException {
    writeAtomically(path, temp, bytes);
  }

  /** Writes {@code bytes} to {@code target} through {@code temp}, as described on the class. */
  public static void writeAtomically(Path target, Path temp, byte[] bytes) throws IOException {
    // Ledgers and checkpoints are state: 0600 from creation (the rename keeps the mode).
    TempFile.write(temp, bytes, true);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsyncDirectory(target.toAbsolutePath().getParent());
  }

  /**
   * Makes a rename or unlink in {@code dir} durable (works on Linux: a directory opens read-only).
   */
  public static void fsyncDirectory(Path dir) throws IOException {
    try (var ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
