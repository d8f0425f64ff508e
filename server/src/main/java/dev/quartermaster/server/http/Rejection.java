package dev.quartermaster.server.http;

/**
 * Why the transport answered a connection or request itself, before any handler ran. The label is
 * the {@code reason} of {@code qm_http_rejected_total}.
 */
public enum Rejection {
  /** The server held {@link ConnectionSettings#maxConnections()} connections already. */
  CONNECTIONS("connections"),
  /** The client's address held {@link ConnectionSettings#maxConnectionsPerAddress()} already. */
  CONNECTIONS_PER_ADDRESS("connections_per_address"),
  /**
   * A request began but did not arrive whole within {@link ConnectionSettings#requestTimeout()}.
   */
  REQUEST_TIMEOUT("request_timeout"),
  /** Not HTTP/1.x we can read: a bad request line, header, target, length or chunk; or too long. */
  MALFORMED("malformed");

  private final String label;

  Rejection(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
