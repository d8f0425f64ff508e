package dev.quartermaster.api.client.http;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * The idle connections to one server, for calls to take one at a time ({@link KeptConnection}). A
 * call takes the most recently used idle connection that is still open, or opens one; a connection
 * whose answer left it clean comes back afterwards, others are closed. At most {@link #MAX_IDLE}
 * wait, as many as callers ran at once is enough.
 *
 * <p>A request is never sent again here on a fresh connection after failing on a kept one: a write
 * whose answer was lost may have landed (a GET, {@link HttpApiClient} sends on to the next server).
 * What makes that rare is the check before use: a connection the server closed while idle is seen
 * closed and dropped, never written to. A connection that cannot be opened at all is a {@link
 * NotConnected}: then nothing was sent, and the caller may go elsewhere.
 */
final class KeptConnections implements Connections {
  private static final int MAX_IDLE = 32;

  private final URI base;
  private final Optional<SSLContext> tls;
  private final int connectTimeoutMillis;
  private final ArrayDeque<KeptConnection> idle = new ArrayDeque<>();
  private boolean closed; // guarded by idle

  KeptConnections(URI base, Optional<SSLContext> tls, int connectTimeoutMillis) {
    this.base = base;
    this.tls = tls;
    this.connectTimeoutMillis = connectTimeoutMillis;
  }

  @Override
  public HttpAnswer exchange(
      String method,
      String target,
      Map<String, String> headers,
      Optional<byte[]> body,
      long deadlineNanos)
      throws IOException {
    var connection = take();
    boolean kept = false;
    try {
      var answer = connection.exchange(method, target, headers, body, deadlineNanos);
      kept = give(connection);
      return answer;
    } finally {
      if (!kept) {
        connection.close();
      }
    }
  }

  private KeptConnection take() throws IOException {
    while (true) {
      KeptConnection connection;
      synchronized (idle) {
        if (closed) {
          throw new IOException("the client was closed");
        }
        connection = idle.pollFirst();
      }
      if (connection == null) {
        try {
          return KeptConnection.open(base, tls, connectTimeoutMillis);
        } catch (IOException e) {
          throw new NotConnected(e);
        }
      }
      if (connection.stillOpen()) {
        return connection;
      }
      connection.close();
    }
  }

  /**
   * Keeps {@code connection} for the next call if it can carry one; false when the caller must
   * close it.
   */
  private boolean give(KeptConnection connection) {
    if (!connection.reusable()) {
      return false;
    }
    synchronized (idle) {
      if (closed || idle.size() >= MAX_IDLE) {
        return false;
      }
      idle.addFirst(connection);
      return true;
    }
  }

  /** Idle connections that look open now (for tests that wait for a close to cross). */
  int idleOpen() {
    synchronized (idle) {
      return (int) idle.stream().filter(KeptConnection::stillOpen).count();
    }
  }

  /** Closes the idle connections; those in use close when their call ends. */
  @Override
  public void close() {
    synchronized (idle) {
      closed = true;
      idle.forEach(KeptConnection::close);
      idle.clear();
    }
  }
}
