package dev.quartermaster.agent.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where CDI specs go when {@code --cdi-dir} is not given. */
public final class CdiDirs {
  /** The CDI dynamic directory, highest priority for runtimes, cleared on reboot. */
  public static final Path DYNAMIC = Path.of("/var/run/cdi");

  private CdiDirs() {}

  /** {@link #DYNAMIC} when this process can write there (normally root), else {@code <state>/cdi}. */
  public static Path defaultFor(Path stateDir) {
    try {
      Files.createDirectories(DYNAMIC);
      if (Files.isWritable(DYNAMIC)) {
        return DYNAMIC;
      }
    } catch (IOException | SecurityException e) {
      // not root: fall through to the state directory
    }
    return stateDir.resolve("cdi");
  }
}
