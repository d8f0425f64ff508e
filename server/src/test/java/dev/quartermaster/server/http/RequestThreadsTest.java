package dev.quartermaster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 43: under load a health check waited 8 s behind other requests for a thread. It runs on
 * threads of its own: here the request threads never run anything, and health still answers.
 */
@Timeout(60)
class RequestThreadsTest {
  @Test
  void healthIsAnsweredWhileEveryRequestThreadIsTaken() throws Exception {
    var stuck = new ArrayList<Runnable>(); // the request threads: busy, nothing they get ever runs
    HttpHandler handler =
        exchange -> {
          var body = "ok\n".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        };
    try (var health = Executors.newSingleThreadExecutor();
        var http =
            HttpTransport.start(
                new InetSocketAddress("127.0.0.1", 0),
                ConnectionSettings.DEFAULTS,
                1 << 20,
                handler,
                new RequestThreads(
                    r -> {
                      synchronized (stuck) {
                        stuck.add(r);
                      }
                    },
                    health,
                    Set.of("/healthz")),
                rejected -> {},
                Optional.empty())) {
      int port = http.address().getPort();
      try (var busy = open(port)) {
        send(busy, "GET /api/v1/queues HTTP/1.1\r\nHost: x\r\n\r\n");
        for (var method : List.of("GET", "HEAD")) {
          try (var s = open(port)) {
            send(s, method + " /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(statusLine(s)).as(method + " /healthz").isEqualTo("HTTP/1.1 200 OK");
          }
        }
      }
      synchronized (stuck) {
        assertThat(stuck).as("the other request waits for a request thread").hasSize(1);
      }
    }
  }

  private static Socket open(int port) throws IOException {
    var s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    s.setSoTimeout(20_000); // no answer at all fails the test instead of hanging it
    return s;
  }

  private static void send(Socket s, String request) throws IOException {
    s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
  }

  private static String statusLine(Socket s) throws IOException {
    var in = s.getInputStream();
    var line = new StringBuilder();
    for (int b; (b = in.read()) != -1 && b != '\n'; ) {
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }
}
