package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.nio.file.Path;

/** Another agent holds the state directory: two agents interleaving one ledger would break I1. */
public final class StateDirLockedException extends IOException {
  private static final long serialVersionUID = 1L;

  private final Path lockFile;
  private final String holder;

  public StateDirLockedException(Path lockFile, String holder) {
    super(
        "state directory "
            + lockFile.getParent()
            + " is in use by another agent ("
            + holder
            + ", lock "
            + lockFile
            + "); stop that agent first, or give this one another --state directory");
    this.lockFile = lockFile;
    this.holder = holder;
  }

  public Path lockFile() {
    return lockFile;
  }

  /** Who holds it, e.g. "pid 4711". */
  public String holder() {
    return holder;
  }
}
