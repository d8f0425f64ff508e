package dev.quartermaster.api.client.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's own HTTP/1.1 connections against a server scripted byte by byte: kept between calls,
 * never written to once the server closed them, answers framed every way HTTP allows, and a
 * deadline.
 */
@Timeout(30)
class KeptConnectionTest {
  private static final long LONG = TimeUnit.SECONDS.toNanos(10);

  /** What the server does on one accepted connection. */
  private interface Script {
    void run(Socket socket, BufferedReader requests) throws IOException, InterruptedException;
  }

  private ServerSocket listener;
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile Script script;
  private URI base;

  @BeforeEach
  void listen() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    base = URI.create("http://127.0.0.1:" + listener.getLocalPort());
    Thread.ofVirtual()
        .start(
            () -> {
              while (!listener.isClosed()) {
                try {
                  var socket = listener.accept();
                  accepted.incrementAndGet();
                  var current = script;
                  Thread.ofVirtual()
                      .start(
                          () -> {
                            try (socket) {
                              current.run(
                                  socket,
                                  new BufferedReader(
                                      new InputStreamReader(
                                          socket.getInputStream(), StandardCharsets.ISO_8859_1)));
                            } catch (IOException | InterruptedException e) {
                              // the test decides what a broken connection means
                            }
                          });
                } catch (IOException e) {
                  return;
                }
              }
            });
  }

  @AfterEach
  void close() throws IOException {
    listener.close();
  }

  @Test
  void aKeptConnectionCarriesTheNextCall() throws IOException {
    script =
        (socket, in) -> {
          for (int i = 0; i < 3; i++) {
            readRequest(in);
            answer(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
          }
        };
    try (var pool = new KeptConnections(base, Optional.empty(), 5_000)) {
      for (int i = 0; i < 3; i++) {
        var answer =
            pool.exchange("GET", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG);
        assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("ok");
      }
    }
    assertThat(accepted).as("three calls, one connection").hasValue(1);
  }

  /**
   * The server's keep-alive timer closes an idle connection: the next call must go on a new one.
   * The naive way, writing into the closed one, loses the call with nothing received.
   */
  @Test
  void aConnectionTheServerClosedWhileIdleIsNeverWrittenTo() throws Exception {
    var closed = new CountDownLatch(1);
    script =
        (socket, in) -> {
          readRequest(in);
          answer(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
          socket.close(); // as an idle timeout does, without a Connection: close
          closed.countDown();
        };
    try (var pool = new KeptConnections(base, Optional.empty(), 5_000)) {
      pool.exchange("GET", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG);
      assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
      awaitClosedSeen(pool::idleOpen);
      var second =
          pool.exchange("POST", "/x", Map.of(), Optional.of(new byte[0]), System.nanoTime() + LONG);
      assertThat(second.status()).isEqualTo(200);
      assertThat(accepted).hasValue(2);
    }

    var closedAgain = new CountDownLatch(1);
    script =
        (socket, in) -> {
          readRequest(in);
          answer(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
          socket.close();
          closedAgain.countDown();
        };
    try (var naive = KeptConnection.open(base, Optional.empty(), 5_000)) {
      naive.exchange("GET", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG);
      assertThat(closedAgain.await(10, TimeUnit.SECONDS)).isTrue();
      awaitClosedSeen(() -> naive.stillOpen() ? 1 : 0);
      assertThat(naive.stillOpen()).as("the check sees the close").isFalse();
      var lost =
          catchThrowableOfType(
              IOException.class,
              () ->
                  naive.exchange(
                      "POST", "/x", Map.of(), Optional.of(new byte[0]), System.nanoTime() + LONG));
      assertThat(lost)
          .as("written into the closed connection anyway, the call is lost")
          .isNotNull();
    }
  }

  @Test
  void chunkedAnswersAreReadWholeAndLeaveTheConnectionKept() throws IOException {
    script =
        (socket, in) -> {
          readRequest(in);
          answer(
              socket,
              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n");
          readRequest(in);
          answer(socket, "HTTP/1.1 204 No Content\r\n\r\n");
        };
    try (var pool = new KeptConnections(base, Optional.empty(), 5_000)) {
      var answer = pool.exchange("GET", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG);
      assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("abcde");
      assertThat(
              pool.exchange("DELETE", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG)
                  .body())
          .isEmpty();
    }
    assertThat(accepted).hasValue(1);
  }

  @Test
  void anAnswerWithoutALengthEndsWithItsConnectionWhichIsNotKept() throws IOException {
    script =
        (socket, in) -> {
          readRequest(in);
          answer(socket, "HTTP/1.1 200 OK\r\nX-Qm-Delete: deleted\r\n\r\nuntil the end");
        };
    var connection = KeptConnection.open(base, Optional.empty(), 5_000);
    try (connection) {
      var answer =
          connection.exchange("GET", "/x", Map.of(), Optional.empty(), System.nanoTime() + LONG);
      assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("until the end");
      assertThat(answer.header("x-qm-DELETE")).contains("deleted");
      assertThat(connection.reusable()).isFalse();
    }
  }

  @Test
  void aServerThatNeverAnswersCostsTheDeadline() throws IOException {
    var release = new CountDownLatch(1);
    script =
        (socket, in) -> {
          readRequest(in);
          release.await(); // holds the connection open, answering nothing
        };
    try (var pool = new KeptConnections(base, Optional.empty(), 5_000)) {
      var e =
          catchThrowableOfType(
              HttpTimeoutException.class,
              () ->
                  pool.exchange(
                      "GET",
                      "/x",
                      Map.of(),
                      Optional.empty(),
                      System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300)));
      assertThat(e).isNotNull();
    } finally {
      release.countDown();
    }
  }

  /**
   * A server that refuses a body it will not read answers first and closes: that answer is the
   * result.
   */
  @Test
  void anAnswerSentBeforeTheBodyWasReadIsStillRead() throws IOException {
    script =
        (socket, in) -> {
          for (var line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            // the head only: the body is never read
          }
          answer(
              socket,
              "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!");
          socket.setSoLinger(true, 0); // what is unread is thrown away: the client's writes fail
          socket.close();
        };
    try (var pool = new KeptConnections(base, Optional.empty(), 5_000)) {
      var answer =
          pool.exchange(
              "POST", "/x", Map.of(), Optional.of(new byte[32 << 20]), System.nanoTime() + LONG);
      assertThat(answer.status()).isEqualTo(413);
      assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("too big!");
    }
  }

  /** A server that takes the connection and says nothing (a TLS server spoken to in plain text). */
  @Test
  void aConnectionClosedWithoutAnAnswerIsUnavailableWithAHint() {
    script = (socket, in) -> socket.close();
    try (var client = new HttpApiClient(base, "t")) {
      var e = catchThrowableOfType(ApiException.class, () -> client.get(Kinds.NODE, "n"));
      assertThat(e.reason()).isEqualTo(Reason.Unavailable);
      assertThat(e.getMessage()).contains("received no bytes").contains("is it serving https?");
    }
  }

  private static void readRequest(BufferedReader in) throws IOException {
    long length = 0;
    for (var line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Long.parseLong(line.substring(15).trim());
      }
    }
    in.skip(length);
  }

  private static void answer(Socket socket, String bytes) throws IOException {
    socket.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
    socket.getOutputStream().flush();
  }

  /** The close crosses loopback at once, but not within the same instant: wait for it, bounded. */
  private static void awaitClosedSeen(java.util.function.IntSupplier open)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (open.getAsInt() > 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
  }
}
