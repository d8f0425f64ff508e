package dev.quartermaster.api.client.http;

import java.io.IOException;

/**
 * No connection to the server could be opened (refused, no route, timed out, unknown host, TLS
 * refused): nothing of the request was sent, so any call, a write too, may go to another server.
 */
public final class NotConnected extends IOException {
  public NotConnected(IOException cause) {
    super(cause.getMessage(), cause);
  }

  /** What failed to connect, for {@link ResponseErrors#fromTransport} to describe. */
  IOException reason() {
    return (IOException) getCause();
  }
}
