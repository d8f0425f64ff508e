package dev.quartermaster.agent.checkpoint;

import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * An exclusive lock on {@code <state>/agent.lock} (an OS file lock, released by the kernel when the
 * holder exits, even by kill -9), with the holder's pid written inside so that a refused agent can
 * say who has it.
 */
public final class StateDirLock implements AutoCloseable {
  public static final String FILE_NAME = "agent.lock";

  private final Path path;
  private final FileChannel channel;
  private final FileLock lock;

  private StateDirLock(Path path, FileChannel channel, FileLock lock) {
    this.path = path;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock of {@code stateDir}, creating the directory; throws if another process has it.
   */
  public static StateDirLock acquire(Path stateDir) throws IOException {
    ownerOnly(stateDir)
        .ifPresent(
            t ->
                LoggerFactory.getLogger(StateDirLock.class)
                    .warn("agent state directory was open to other users; tightened {}", t));
    var path = stateDir.resolve(FILE_NAME).toAbsolutePath();
    var channel =
        FileChannel.open(
            path,
            java.util.Set.of(
                StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
            OwnerOnly.fileAttribute(path));
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      channel.close();
      throw new StateDirLockedException(
          path, "pid " + ProcessHandle.current().pid() + ", this very process");
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      var holder = readHolder(channel);
      channel.close();
      throw new StateDirLockedException(path, holder);
    }
    try {
      var text =
          ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(text), 0);
      channel.force(true);
    } catch (IOException e) {
      lock.release();
      channel.close();
      throw e;
    }
    return new StateDirLock(path, channel, lock);
  }

  /**
   * Makes {@code stateDir} 0700 before anything is written in it, creating it so; answers a
   * tightening worth a warning: one of a directory that already held something. The state dir holds
   * ledgers, journals, checkpoints and task output, which no other local user may read. An empty
   * directory someone else made wider (the kubelet makes a DaemonSet's {@code DirectoryOrCreate}
   * host path 0755) exposed nothing: it is set quietly.
   */
  static Optional<OwnerOnly.Tightened> ownerOnly(Path stateDir) throws IOException {
    boolean fresh;
    if (!Files.isDirectory(stateDir)) {
      fresh = true;
    } else {
      try (var entries = Files.list(stateDir)) {
        fresh = entries.findAny().isEmpty();
      }
    }
    var tightened = OwnerOnly.directory(stateDir);
    if (fresh && tightened.isPresent()) {
      LoggerFactory.getLogger(StateDirLock.class)
          .info(
              "state directory {} set to owner-only before first use ({})",
              stateDir,
              tightened.get());
      return Optional.empty();
    }
    return tightened;
  }

  private static String readHolder(FileChannel channel) throws IOException {
    var buffer = ByteBuffer.allocate(128);
    channel.read(buffer, 0);
    var text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
    return text.isEmpty() ? "pid unknown: it has not written its pid yet" : text;
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
