package dev.quartermaster.csi.grpc;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Silences Netty's "Unknown channel option 'SO_KEEPALIVE'" warning, which gRPC triggers once per
 * Unix socket connection (keepalive means nothing there) when Netty logs through java.util.logging.
 * Where Netty logs through SLF4J, the logging configuration does the same (see the CLI's
 * logback.xml).
 */
final class NettyLogs {
  /** Held strongly: java.util.logging forgets the level of a logger nobody references. */
  private static final Logger BOOTSTRAP = Logger.getLogger("io.netty.bootstrap");

  static {
    BOOTSTRAP.setLevel(Level.SEVERE);
  }

  private NettyLogs() {}

  /** Applies the setting (by loading this class). */
  static void quiet() {
    // the static initializer did it
  }
}
