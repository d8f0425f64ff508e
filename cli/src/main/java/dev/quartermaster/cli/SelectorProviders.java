package dev.quartermaster.cli;

import java.util.Locale;
import java.util.Optional;

/**
 * The JDK's default selector provider of each platform, by class name (see {@code
 * Main.nameSelectorProvider}).
 */
final class SelectorProviders {
  /** The system property {@link java.nio.channels.spi.SelectorProvider#provider()} reads first. */
  static final String PROPERTY = "java.nio.channels.spi.SelectorProvider";

  private SelectorProviders() {}

  /**
   * The class the JDK would choose on {@code osName}; empty where we do not know it, so the JDK
   * searches as usual.
   */
  static Optional<String> platformDefault(String osName) {
    var os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      return Optional.of("sun.nio.ch.EPollSelectorProvider");
    }
    if (os.startsWith("mac")) {
      return Optional.of("sun.nio.ch.KQueueSelectorProvider");
    }
    return Optional.empty();
  }
}
