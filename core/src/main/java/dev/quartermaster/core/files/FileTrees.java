package dev.quartermaster.core.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;

/** Removing a directory tree: the one home of the walk-and-delete several places needed. */
public final class FileTrees {
  private FileTrees() {}

  /**
   * Deletes {@code root} and everything under it, deepest first; nothing if it does not exist. A
   * symbolic link is removed, never followed.
   */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause(); // the walk's own failure to read a directory
    }
  }
}
