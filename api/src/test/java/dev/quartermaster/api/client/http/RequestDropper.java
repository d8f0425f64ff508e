package dev.quartermaster.api.client.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server that reads each request's head and closes the connection without answering: the request
 * was sent, its answer is lost (as when a server dies mid-call).
 */
final class RequestDropper implements AutoCloseable {
  private final ServerSocket listener;
  private final AtomicInteger requests = new AtomicInteger();
  private final Thread acceptor;

  RequestDropper() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = Thread.ofVirtual().start(this::accept);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  /** Requests whose head was read, each then dropped. */
  int requests() {
    return requests.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try (Socket connection = listener.accept()) {
        var in = connection.getInputStream();
        int matched = 0; // of the CRLF CRLF that ends a head
        for (int c; matched < 4 && (c = in.read()) >= 0; ) {
          matched = c == "\r\n\r\n".charAt(matched) ? matched + 1 : c == '\r' ? 1 : 0;
        }
        requests.incrementAndGet();
      } catch (IOException e) {
        // closed: the loop ends
      }
    }
  }

  @Override
  public void close() throws InterruptedException, IOException {
    listener.close();
    acceptor.join();
  }
}
