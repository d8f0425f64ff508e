package dev.quartermaster.api.client.http;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * The connections to one server that carry {@link HttpApiClient}'s calls (all but watches): one
 * request and its whole answer at a time per caller, connections kept between calls. The client's
 * own are {@link KeptConnections}; {@link HttpApiClient#over} takes others (the bench weighs Apache
 * HttpClient's against them).
 */
public interface Connections extends AutoCloseable {
  /**
   * The message of the {@link java.io.EOFException} for "closed before a byte of the answer":
   * {@link ResponseErrors} hints from it.
   */
  String NO_ANSWER = "the server closed the connection and received no bytes of an answer";

  /**
   * Sends one request and reads its whole answer by {@code deadlineNanos} ({@link
   * System#nanoTime}).
   *
   * @param target the path and query, already encoded
   * @param headers sent as given; {@code Content-Length} is added for a body
   * @throws NotConnected when no connection could be opened: nothing was sent
   */
  HttpAnswer exchange(
      String method,
      String target,
      Map<String, String> headers,
      Optional<byte[]> body,
      long deadlineNanos)
      throws IOException;

  /** Closes the idle connections; those in use close when their call ends. */
  @Override
  void close();

  /** Makes the connections to one server. */
  @FunctionalInterface
  public interface Opener {
    Connections to(URI base, Optional<SSLContext> tls, int connectTimeoutMillis);
  }
}
