package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on {@code <db>.lock}, held while a store is open. The writer keeps the
 * revision counter in memory and publishes watch events itself, so two stores writing one file
 * would break revision order and starve each other's watches. The lock is on a separate file
 * because locking the database file from Java would interfere with SQLite's own POSIX locks. The OS
 * drops it when the process dies, so a crash never leaves the store locked.
 */
final class FileGuard {
  private final FileChannel channel;
  private final FileLock lock;

  private FileGuard(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static FileGuard acquire(Path db) {
    Path lockFile = db.resolveSibling(db.getFileName() + ".lock");
    FileChannel channel = null;
    try {
      Path parent = db.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      // Owner-only like the store it guards (an older 0644 one is tightened).
      dev.quartermaster.core.files.OwnerOnly.file(lockFile);
      channel =
          FileChannel.open(
              lockFile,
              java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
              dev.quartermaster.core.files.OwnerOnly.fileAttribute(lockFile));
      FileLock lock = channel.tryLock();
      if (lock == null) {
        throw new StoreInUseException(
            "store " + db + " is in use by another process (" + lockFile + " is locked)");
      }
      return new FileGuard(channel, lock);
    } catch (OverlappingFileLockException e) {
      closeQuietly(channel);
      throw new StoreInUseException("store " + db + " is already open in this process", e);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreException(
          "store " + db + ": cannot lock " + lockFile + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  void release() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // Closing the channel below drops the lock anyway.
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // Nothing was written through this channel.
    }
  }
}
