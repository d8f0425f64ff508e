package dev.quartermaster.bench;

import dev.quartermaster.core.files.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the bench's agents write CDI specs: a tmpfs, as {@code /var/run/cdi} (the agent's default)
 * is on every systemd host, so a spec costs here what it costs in production; the data directory
 * where this machine has no writable tmpfs, which the heading then says. Removed on close.
 */
record SpecDir(Path root, boolean tmpfs) implements AutoCloseable {
  private static final Path SHM = Path.of("/dev/shm");

  static SpecDir under(Path dataDir) throws IOException {
    if (Files.isDirectory(SHM)
        && Files.isWritable(SHM)
        && "tmpfs".equals(Files.getFileStore(SHM).type())) {
      return new SpecDir(Files.createTempDirectory(SHM, "qm-bench-cdi-"), true);
    }
    return new SpecDir(Files.createDirectories(dataDir.resolve("cdi")), false);
  }

  /** The CDI directory of one node. */
  Path of(String node) {
    return root.resolve(node);
  }

  /** For the heading: where the specs go and why. */
  String describe() {
    return tmpfs
        ? "CDI specs on tmpfs (" + root + "), as /var/run/cdi is"
        : "CDI specs in the data directory (no writable tmpfs at /dev/shm; /var/run/cdi is one in production)";
  }

  @Override
  public void close() throws IOException {
    if (!tmpfs) {
      return; // the data directory's, kept with the rest of the run
    }
    FileTrees.delete(root);
  }
}
