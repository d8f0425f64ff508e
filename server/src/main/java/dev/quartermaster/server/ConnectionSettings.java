package dev.quartermaster.server;

import java.time.Duration;

/**
 * How the server protects itself from clients that open many connections or send slowly.
 *
 * @param requestTimeout how long a client may take to send a whole request (line, headers and body)
 *     once its first byte arrived; a connection past it is closed. Also the limit for a connection
 *     that was accepted but never sent a byte (checked on the JDK server's idle tick). A stalled or
 *     trickling client thus holds a socket for at most this long
 * @param idleTimeout how long a keep-alive connection between requests may stay open
 * @param maxConnections open connections the server accepts at once; past it new ones are closed
 *     at accept, before anything is read. It keeps a flood from exhausting the open-file limit
 * @param maxRequestsPerAddress requests (watches included) one client address may have in flight;
 *     past it the server answers 503 without calling the handler
 */
public record ConnectionSettings(Duration requestTimeout, Duration idleTimeout, int maxConnections,
    int maxRequestsPerAddress) {

  /** Generous for real clients; a local cluster's agents all share 127.0.0.1, hence the high per-address cap. */
  public static final ConnectionSettings DEFAULTS =
      new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000, 2_000);

  public ConnectionSettings {
    // The JDK server takes both timeouts in whole seconds.
    if (requestTimeout.toSeconds() < 1) {
      throw new IllegalArgumentException("requestTimeout must be at least 1s, got " + requestTimeout);
    }
    if (idleTimeout.toSeconds() < 1) {
      throw new IllegalArgumentException("idleTimeout must be at least 1s, got " + idleTimeout);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, got " + maxConnections);
    }
    if (maxRequestsPerAddress < 1) {
      throw new IllegalArgumentException("maxRequestsPerAddress must be >= 1, got " + maxRequestsPerAddress);
    }
  }
}
