package dev.quartermaster.core.files;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Owner-only directories (0700) and files (0600).
 *
 * <p>State is created with these modes (as a creation attribute, so no other user can open it in
 * the window before a chmod), and state that an older version left readable is tightened: {@link
 * #directory} and {@link #file} answer what they changed so that the caller can log it. On a file
 * system without POSIX permissions (not Linux) they create without modes and change nothing.
 */
public final class OwnerOnly {
  public static final Set<PosixFilePermission> DIRECTORY =
      PosixFilePermissions.fromString("rwx------");
  public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private OwnerOnly() {}

  /** A change made to an existing path: {@code /data: rwxr-xr-x -> rwx------}. */
  public record Tightened(Path path, String from, String to) {
    @Override
    public String toString() {
      return path + ": " + from + " -> " + to;
    }
  }

  /**
   * Creates {@code dir} (and missing parents, which get the default mode: they may be shared places
   * like /var/lib) with mode 0700, or tightens it to 0700 when it exists with more.
   */
  public static Optional<Tightened> directory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      var parent = dir.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try {
        if (posix(dir)) {
          Files.createDirectory(dir, attribute(DIRECTORY));
        } else {
          Files.createDirectory(dir);
        }
        // The umask may have taken bits away; 0700 is what is asked for, not less.
        setIfPosix(dir, DIRECTORY);
        return Optional.empty();
      } catch (FileAlreadyExistsException raced) {
        // made meanwhile: tighten it below
      }
    }
    return tighten(dir, DIRECTORY);
  }

  /** Tightens an existing file to 0600 (no change when it is absent or already 0600 or less). */
  public static Optional<Tightened> file(Path file) throws IOException {
    // Not also Files.exists(NOFOLLOW_LINKS): a missing path is not a regular file either, and that
    // check costs the JDK an exception for every file about to be made.
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    return tighten(file, FILE);
  }

  /**
   * The attribute to create a file with mode 0600 ({@code Files.newByteChannel(path, options,
   * fileAttribute())}).
   */
  public static FileAttribute<?>[] fileAttribute(Path where) {
    // where: any path on the file system the file will be on
    return posix(where) ? new FileAttribute<?>[] {attribute(FILE)} : new FileAttribute<?>[0];
  }

  /** Creates an empty file with mode 0600 if it does not exist, else tightens it. */
  public static Optional<Tightened> createFile(Path file) throws IOException {
    try {
      Files.createFile(file, fileAttribute(file));
      return Optional.empty();
    } catch (FileAlreadyExistsException exists) {
      return file(file);
    }
  }

  private static Optional<Tightened> tighten(Path path, Set<PosixFilePermission> allowed)
      throws IOException {
    var view =
        Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view == null) {
      return Optional.empty();
    }
    var now = view.readAttributes().permissions();
    if (allowed.containsAll(now)) {
      return Optional.empty();
    }
    // Only bits are taken away: an owner who chose 0400 keeps 0400.
    var kept = java.util.EnumSet.noneOf(PosixFilePermission.class);
    kept.addAll(now);
    kept.retainAll(allowed);
    view.setPermissions(kept);
    return Optional.of(
        new Tightened(
            path, PosixFilePermissions.toString(now), PosixFilePermissions.toString(kept)));
  }

  private static void setIfPosix(Path path, Set<PosixFilePermission> perms) throws IOException {
    var view =
        Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view != null) {
      view.setPermissions(perms);
    }
  }

  private static boolean posix(Path where) {
    return where.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> perms) {
    return PosixFilePermissions.asFileAttribute(perms);
  }
}
