package dev.quartermaster.store.sqlite.nativelib;

import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;

/**
 * A library copied out of its jar once, into an owner-only directory of its own, and reused while
 * it matches ({@link LibraryResource#matches}). A copy is written to a temp file beside it and
 * renamed over it, so a process that loads it meanwhile (another JVM starting) sees the old file or
 * the new one, never half of one; a process already using a replaced copy keeps its own.
 *
 * @param file where the library is
 * @param outcome what this call did to make it so
 */
record KeptLibrary(Path file, Outcome outcome) {
  enum Outcome {
    /** There was no copy: one was written. */
    EXTRACTED,
    /** The copy there matched: nothing was written. */
    REUSED,
    /** The copy there did not match (cut short, damaged, another build): it was written again. */
    REPLACED
  }

  /** {@code resource} kept in {@code dir}, made owner-only (0700) if need be. */
  static KeptLibrary keep(LibraryResource resource, Path dir) throws IOException {
    OwnerOnly.directory(dir);
    var file = dir.resolve(resource.name());
    Outcome outcome;
    if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      if (resource.matches(file)) {
        return new KeptLibrary(file, Outcome.REUSED);
      }
      outcome = Outcome.REPLACED;
    } else {
      outcome = Outcome.EXTRACTED;
    }
    var temp = Files.createTempFile(dir, resource.name() + ".", ".tmp"); // 0600, a name of its own
    try {
      var crc = new CRC32();
      long size;
      try (var in = new CheckedInputStream(resource.open(), crc);
          var out = Files.newOutputStream(temp)) {
        size = in.transferTo(out);
      }
      if (size != resource.size() || crc.getValue() != resource.crc()) {
        throw new IOException(
            "the copy of "
                + resource
                + " does not match it ("
                + size
                + " bytes, CRC "
                + Long.toHexString(crc.getValue())
                + "; expected "
                + resource.size()
                + ", "
                + Long.toHexString(resource.crc())
                + ")");
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
    return new KeptLibrary(file, outcome);
  }
}
