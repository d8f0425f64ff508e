package dev.quartermaster.csi.hostpath;

import java.nio.file.Path;

/**
 * A state file that cannot be read back. Loud on purpose: starting with an empty state would forget
 * volumes and attachments that still exist, and a CO would then attach one volume twice.
 */
public final class DamagedStateException extends RuntimeException {
  private final transient Path file;

  public DamagedStateException(Path file, Throwable cause) {
    super(
        "hostpath state file "
            + file
            + " is damaged ("
            + cause.getMessage()
            + "); repair or remove it by hand, knowing that removing it forgets its volumes and attachments",
        cause);
    this.file = file;
  }

  public Path file() {
    return file;
  }
}
