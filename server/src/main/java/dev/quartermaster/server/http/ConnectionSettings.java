package dev.quartermaster.server.http;

import java.time.Duration;

/**
 * How the server protects itself from clients that open many connections or send slowly.
 *
 * @param requestTimeout how long a client may take to send a whole request (line, headers and body)
 *     once its first byte arrived; past it the server answers 408 and closes the connection
 * @param idleTimeout how long a connection may stay open without sending a byte: before its first
 *     request, and between requests on a kept-alive connection
 * @param maxConnections open connections the server holds at once; past it a new one is answered
 *     503 and closed at accept, before anything is read. It keeps a flood from exhausting the
 *     open-file limit (and it is lowered to half that limit when the limit is smaller)
 * @param maxConnectionsPerAddress open connections one client address may hold; past it the same
 *     503. A connection carries one request at a time, so this also bounds one client's requests in
 *     flight, watches included
 */
public record ConnectionSettings(
    Duration requestTimeout,
    Duration idleTimeout,
    int maxConnections,
    int maxConnectionsPerAddress) {

  /**
   * Generous for real clients; every agent of a local cluster shares 127.0.0.1, hence the high
   * per-address cap.
   */
  public static final ConnectionSettings DEFAULTS =
      new ConnectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), 10_000, 2_000);

  public ConnectionSettings {
    if (!requestTimeout.isPositive()) {
      throw new IllegalArgumentException("requestTimeout must be positive, got " + requestTimeout);
    }
    if (!idleTimeout.isPositive()) {
      throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, got " + maxConnections);
    }
    if (maxConnectionsPerAddress < 1) {
      throw new IllegalArgumentException(
          "maxConnectionsPerAddress must be >= 1, got " + maxConnectionsPerAddress);
    }
  }
}
