package dev.quartermaster.agent.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where CDI specs go when {@code --cdi-dir} is not given. */
public final class CdiDirs {
  /** The CDI dynamic directory, highest priority for runtimes, cleared on reboot. */
  public static final Path DYNAMIC = Path.of("/var/run/cdi");

  /**
   * Whether this process can write specs into a directory, making it if need be (it touches the
   * host).
   */
  @FunctionalInterface
  public interface Probe {
    boolean writable(Path dir);

    /** The real one: creates the directory when it can, then asks whether it is writable. */
    Probe HOST =
        dir -> {
          try {
            Files.createDirectories(dir);
            return Files.isWritable(dir);
          } catch (IOException | SecurityException e) {
            return false; // not root
          }
        };
  }

  private CdiDirs() {}

  /** As {@link #defaultFor(Path, boolean, Probe)} on this host. */
  public static Path defaultFor(Path stateDir, boolean simulated) {
    return defaultFor(stateDir, simulated, Probe.HOST);
  }

  /**
   * A simulated node's specs describe devices that do not exist: they stay under its state
   * directory ({@code <state>/cdi}, as {@code qm up}'s nodes), and {@link #DYNAMIC} is not even
   * looked at, so a trial on a workstation neither creates it nor leaves specs a real runtime would
   * read. A real node uses {@link #DYNAMIC} when {@code probe} says it can write there (normally
   * root), else {@code <state>/cdi}.
   */
  public static Path defaultFor(Path stateDir, boolean simulated, Probe probe) {
    return !simulated && probe.writable(DYNAMIC) ? DYNAMIC : stateDir.resolve("cdi");
  }
}
