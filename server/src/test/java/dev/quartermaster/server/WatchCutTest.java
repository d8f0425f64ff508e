package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.server.http.StreamOutput;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 43: watchers that never read took the server from 238 MB to 1.75 GB. A stream holds at most
 * its byte bound for its client, counted where the server holds it (its queue and its connection's
 * buffer), and past it the stream is cut with a 410 line the client reads after what it was sent.
 * Counted, not timed: the client here never reads at all.
 */
@Timeout(60)
class WatchCutTest {
  private static final long LIMIT = 256 << 10;

  /** ~4 KB of labels: the bound is reached by bytes long before the event count. */
  private static final Map<String, String> BULK = bulkLabels();

  @Test
  void aWatcherThatNeverReadsIsCutAtTheByteBoundAndNeverHeldMore() throws Exception {
    var settings =
        new WatchSettings(Duration.ofSeconds(10), Duration.ZERO, 100_000)
            .withMaxQueueBytes(LIMIT)
            .withWriteTimeout(Duration.ofMinutes(5));
    var lines = new EventLines();
    var session =
        new WatchSession<>(
            Kinds.NODE,
            0,
            LabelSelector.parse(""),
            new SystemEnv(),
            settings,
            lines,
            new Metrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), Optional.empty()));
    var client = new NeverReads(64 << 10); // its connection's buffer fills at 64 KiB, then waits
    var status = new AtomicInteger();
    var exchange = new Exchange(client);
    var writer = Thread.ofVirtual().start(() -> status.set(runQuietly(session, exchange)));

    int events = 400; // ~1.6 MB: six times the bound
    for (int i = 1; i <= events; i++) {
      session.onEvent(
          new WatchEvent<>(
              WatchEvent.Type.ADDED,
              new Node(ObjectMeta.named("n" + i).withLabels(BULK).withRevision(i), null, null)));
      // What the server holds for this client: unsent on its connection, and queued (read in
      // this order, a line the writer moves between the two is missed, never counted twice).
      long unsent = client.pendingBytes();
      long held = unsent + session.queuedBytes();
      assertThat(held).as("bytes held after event %d", i).isLessThanOrEqualTo(LIMIT);
      assertThat(session.mostBehindBytes()).isLessThanOrEqualTo(LIMIT);
      if (i == 1) {
        // The first item decides the status: the stream is a 200 once the writer took it. A
        // writer started late on a loaded machine would otherwise find only the cut (a 410 answer).
        assertThat(exchange.headersSent.await(60, java.util.concurrent.TimeUnit.SECONDS))
            .as("the stream began")
            .isTrue();
      }
    }
    writer.join();

    assertThat(status.get()).isEqualTo(200);
    var text = client.text();
    var last = text.substring(text.stripTrailing().lastIndexOf('\n') + 1).strip();
    assertThat(last)
        .startsWith("{\"type\":\"ERROR\"")
        .contains("\"code\":410")
        .containsPattern("nodes watch cut: the client fell \\d+ bytes behind \\(limit 262144\\)")
        .contains("list again and watch from the list's revision");
    // What it was sent before the cut is whole: every line before the last is an event.
    var sent = text.strip().split("\n");
    assertThat(sent.length).isGreaterThan(1).isLessThan(events);
    for (int i = 0; i < sent.length - 1; i++) {
      assertThat(sent[i]).startsWith("{\"type\":\"ADDED\"");
    }
    assertThat(session.mostBehindBytes()).isGreaterThan(LIMIT / 2);
  }

  private static int runQuietly(WatchSession<?> session, HttpExchange exchange) {
    try {
      return session.run(exchange);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A client that never reads: what is written stays pending, and once more than {@code buffer} is,
   * every write waits, as the server's connection does for a client that stopped reading, until the
   * stream stops waiting.
   */
  private static final class NeverReads extends OutputStream implements StreamOutput {
    private final long buffer;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private long pending;
    private boolean noWaiting;

    NeverReads(long buffer) {
      this.buffer = buffer;
    }

    @Override
    public synchronized long pendingBytes() {
      return pending;
    }

    @Override
    public synchronized void writeLine(byte[] line) throws java.io.IOException {
      write(line, 0, line.length);
      flush();
    }

    @Override
    public void capSocketBuffer(int bytes) {}

    @Override
    public synchronized void stopWaiting() {
      noWaiting = true;
      notifyAll();
    }

    @Override
    public synchronized void write(int b) {
      written.write(b);
      pending++;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      written.write(b, off, len);
      pending += len;
    }

    @Override
    public synchronized void flush() throws java.io.IOException {
      while (pending > buffer && !noWaiting) {
        try {
          wait();
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
    }

    synchronized String text() {
      return written.toString(StandardCharsets.UTF_8);
    }
  }

  /** Just what a watch stream uses of its exchange. */
  private static final class Exchange extends HttpExchange {
    private final Headers headers = new Headers();
    private final OutputStream body;
    private int code = -1;
    final java.util.concurrent.CountDownLatch headersSent =
        new java.util.concurrent.CountDownLatch(1);

    Exchange(OutputStream body) {
      this.body = body;
    }

    @Override
    public Headers getRequestHeaders() {
      return new Headers();
    }

    @Override
    public Headers getResponseHeaders() {
      return headers;
    }

    @Override
    public URI getRequestURI() {
      return URI.create("/api/v1/nodes?watch=true");
    }

    @Override
    public String getRequestMethod() {
      return "GET";
    }

    @Override
    public HttpContext getHttpContext() {
      return null;
    }

    @Override
    public void close() {}

    @Override
    public InputStream getRequestBody() {
      return InputStream.nullInputStream();
    }

    @Override
    public OutputStream getResponseBody() {
      return body;
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) {
      code = rCode;
      headersSent.countDown();
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
      return new InetSocketAddress("127.0.0.1", 1);
    }

    @Override
    public int getResponseCode() {
      return code;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
      return new InetSocketAddress("127.0.0.1", 2);
    }

    @Override
    public String getProtocol() {
      return "HTTP/1.1";
    }

    @Override
    public Object getAttribute(String name) {
      return null;
    }

    @Override
    public void setAttribute(String name, Object value) {}

    @Override
    public void setStreams(InputStream i, OutputStream o) {}

    @Override
    public HttpPrincipal getPrincipal() {
      return null;
    }
  }

  private static Map<String, String> bulkLabels() {
    var labels = new HashMap<String, String>();
    for (int i = 0; i < 60; i++) {
      labels.put("bulk-" + i, "v".repeat(60));
    }
    return Map.copyOf(labels);
  }
}
