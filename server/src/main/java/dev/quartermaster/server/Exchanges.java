package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/** Writes a complete {@link Reply} to an exchange. */
final class Exchanges {
  private Exchanges() {}

  static int send(HttpExchange exchange, Reply reply) throws IOException {
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Type", reply.contentType());
    reply.headers().forEach(headers::set);
    // A HEAD answer has headers only: writing its body is an error in the JDK server.
    var body = exchange.getRequestMethod().equalsIgnoreCase("HEAD") ? new byte[0] : reply.body();
    exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (var out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
    return reply.status();
  }
}
