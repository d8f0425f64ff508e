package dev.quartermaster.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watchers that stop reading while writes flow: bounded memory, a clear end for them, no harm to
 * the others.
 */
@Timeout(180)
class SlowWatcherTest {
  private static final int STALLED = 20;
  private static final long QUEUE_BYTES = 1L << 20;

  /** About 4 KB per event, so the byte bound, not the count, is what a stalled watcher reaches. */
  private static final Map<String, String> BULK = bulkLabels();

  @TempDir Path dataDir;

  @Test
  void watchersThatFallBehindAreEndedWithATooSlowLineAndMemoryStaysBounded() throws Exception {
    var api = new InMemoryApiClient();
    var settings =
        new WatchSettings(Duration.ofMillis(500), Duration.ZERO, 100_000)
            .withMaxQueueBytes(QUEUE_BYTES)
            .withWriteTimeout(Duration.ofSeconds(120));
    try (var t = TestServer.start(api, dataDir, c -> c.withWatch(settings))) {
      var stalled = new ArrayList<Socket>();
      try (var healthy = new Follower(openStalledWatch(t))) {
        for (int i = 0; i < STALLED; i++) {
          stalled.add(openStalledWatch(t));
        }
        assertThat(api.awaitOpenWatches(STALLED + 1)).isTrue();
        long usedBefore = usedHeapAfterGc();

        // Writes flow at the pace the healthy watcher keeps up with; the stalled ones read nothing.
        int writes =
            4_000; // ~16 MB of lines per watcher: past the queue bound plus the socket buffers
        long written = 0;
        for (int i = 0; i < writes; i++) {
          written = api.create(Samples.node("n" + i, BULK)).metadata().revision();
          if (i % 50 == 49) {
            awaitRevision(healthy, written);
          }
        }
        awaitRevision(healthy, written);
        long usedAfter = usedHeapAfterGc();
        long grew = usedAfter - usedBefore;
        System.out.printf(
            "heap used with %d stalled watchers: before %d MiB, after %d MiB, grew %d MiB (bound %d x %d MiB)%n",
            STALLED, usedBefore >> 20, usedAfter >> 20, grew >> 20, STALLED, QUEUE_BYTES >> 20);
        assertThat(grew).isLessThan(STALLED * QUEUE_BYTES + (64L << 20));

        // Each stalled watcher, once it reads, finds its buffered lines and then the final 410
        // line.
        for (var socket : stalled) {
          var last = lastLine(socket);
          assertThat(last)
              .contains("\"type\":\"ERROR\"")
              .contains("\"code\":410")
              .contains("watch cut: the client fell")
              .contains("list again and watch from the list's revision");
        }
        // The healthy watcher is still open and receiving.
        awaitRevision(healthy, api.create(Samples.node("after")).metadata().revision());
      } finally {
        for (var socket : stalled) {
          socket.close();
        }
      }
      var metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
      assertThat(metrics)
          .contains("qm_watches_closed_total{reason=\"too_slow\"} " + STALLED + ".0");
    }
  }

  @Test
  void aWatcherThatNeverReadsIsDisconnectedAfterTheWriteTimeout() throws Exception {
    var api = new InMemoryApiClient();
    // A queue bound above all the test writes (4,000 x ~4 KB): the write timeout is the only way
    // out.
    // With the 1 MiB bound the queue could fill first, and the watch then ended as too slow, its
    // last
    // line taken by the socket's buffers, with no write blocked long enough to time out (4 of 10
    // runs).
    var settings =
        new WatchSettings(Duration.ofMillis(500), Duration.ZERO, 100_000)
            .withMaxQueueBytes(64L << 20)
            .withWriteTimeout(Duration.ofSeconds(1));
    try (var t = TestServer.start(api, dataDir, c -> c.withWatch(settings))) {
      try (var socket = openStalledWatch(t)) {
        assertThat(api.awaitOpenWatches(1)).isTrue();
        // Enough to fill the socket buffers and block the writer, which the watchdog then
        // interrupts.
        for (int i = 0; i < 4_000 && api.awaitOpenWatches(1); i++) {
          api.create(Samples.node("n" + i, BULK));
        }
        assertThat(api.awaitOpenWatches(0)).as("the server ended the watch").isTrue();
        var lines = drain(socket);
        assertThat(lines).noneMatch(l -> l.contains("watch cut")); // not cut: timed out
      }
      var metrics = t.send(HttpRequest.newBuilder(t.uri("/metrics")).build()).body();
      assertThat(metrics)
          .containsPattern("qm_watches_closed_total\\{reason=\"write_timeout\"} [1-9]");
    }
  }

  /** A watch over a raw socket with a small receive buffer, whose response is not read yet. */
  private static Socket openStalledWatch(TestServer t) throws IOException {
    var socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", t.server.port()), 5_000);
    var request =
        "GET /api/v1/nodes?watch=true&revision=0 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
            + t.token
            + "\r\n\r\n";
    socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return socket;
  }

  /** Reads the stream up to its ERROR line (the connection itself stays open for keep-alive). */
  private static String lastLine(Socket socket) throws IOException {
    socket.setSoTimeout(30_000);
    var reader =
        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    String last = "";
    for (String line; (line = reader.readLine()) != null; ) {
      if (!line.isBlank()) {
        last = line;
      }
      if (line.contains("\"type\":\"ERROR\"")) {
        break;
      }
    }
    return last;
  }

  /** Reads until the server closes the stream (bounded by the socket timeout per read). */
  private static List<String> drain(Socket socket) throws IOException {
    socket.setSoTimeout(30_000);
    var lines = new ArrayList<String>();
    var reader =
        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    try {
      for (String line; (line = reader.readLine()) != null; ) {
        lines.add(line);
      }
    } catch (java.net.SocketException e) {
      // reset by the server after the write timeout: the end of the stream for this client
    }
    return lines;
  }

  private static final Pattern REVISION = Pattern.compile("\"revision\":(\\d+)");

  /**
   * Waits until the follower was sent every change up to {@code revision}: an event line at it or a
   * bookmark past it (bookmarks come every 500 ms). Any ERROR line fails the test.
   */
  private static void awaitRevision(Follower follower, long revision) throws InterruptedException {
    while (true) {
      var line = follower.lines.poll(30, TimeUnit.SECONDS);
      assertThat(line).as("a line within 30 s").isNotNull();
      assertThat(line).doesNotContain("\"type\":\"ERROR\"");
      var m = REVISION.matcher(line);
      long highest = 0;
      while (m.find()) {
        highest = Math.max(highest, Long.parseLong(m.group(1)));
      }
      if (highest >= revision) {
        return;
      }
    }
  }

  /**
   * A watcher that reads as fast as it can, on its own thread, over a raw socket. It undoes the
   * chunked framing before splitting lines: a line longer than the server's chunk buffer arrives in
   * several chunks, and reading the raw bytes by line would cut it where a chunk header sits.
   */
  private static final class Follower implements AutoCloseable {
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Socket socket;

    Follower(Socket socket) throws IOException {
      this.socket = socket;
      socket.setReceiveBufferSize(1 << 20);
      var in =
          new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  skipHeaders(in);
                  var line = new java.io.ByteArrayOutputStream();
                  for (int size; (size = Integer.parseInt(asciiLine(in).trim(), 16)) > 0; ) {
                    var chunk = in.readNBytes(size);
                    asciiLine(in); // the CRLF after the chunk
                    for (byte b : chunk) {
                      if (b == '\n') {
                        lines.add(line.toString(StandardCharsets.UTF_8));
                        line.reset();
                      } else {
                        line.write(b);
                      }
                    }
                  }
                } catch (IOException | NumberFormatException e) {
                  // closed by the test
                }
              });
    }

    private static void skipHeaders(java.io.DataInputStream in) throws IOException {
      while (!asciiLine(in).isEmpty()) {
        // status line and headers
      }
    }

    private static String asciiLine(java.io.DataInputStream in) throws IOException {
      var out = new StringBuilder();
      for (int b; (b = in.read()) != -1 && b != '\n'; ) {
        if (b != '\r') {
          out.append((char) b);
        }
      }
      return out.toString();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static long usedHeapAfterGc() {
    var runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static Map<String, String> bulkLabels() {
    var labels = new HashMap<String, String>();
    for (int i = 0; i < 60; i++) {
      labels.put("bulk-" + i, "v".repeat(60));
    }
    return Map.copyOf(labels);
  }
}
