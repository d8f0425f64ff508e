package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.io.IOException;
import java.util.List;

/**
 * Reads a request body up to a limit, and refuses a larger one with 413 without keeping it.
 *
 * <p>The rest of an oversized body is read and thrown away, up to {@link #DRAIN_CAP}, before the
 * answer: a server that answers and closes while the client is still sending makes the client see a
 * reset connection instead of the 413 that says what is wrong. Past the cap the connection is
 * simply closed — nobody gets to make the server read without end.
 */
final class RequestBody {
  static final long DRAIN_CAP = 64L << 20;

  private RequestBody() {}

  static byte[] read(HttpExchange exchange, long limit) throws IOException {
    try {
      return readBounded(exchange, limit);
    } catch (ApiException e) {
      throw e;
    } catch (IOException e) {
      // The JDK's stream refuses a broken chunked body (a bad chunk size, a missing CRLF): the
      // client's mistake, a 400 saying so, not a 500 (found by HttpRequestFuzzTest).
      throw ErrorResponses.badRequest("body", "cannot be read: " + e.getMessage());
    }
  }

  private static byte[] readBounded(HttpExchange exchange, long limit) throws IOException {
    var declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.strip());
      } catch (NumberFormatException e) {
        throw ErrorResponses.badRequest("Content-Length", "must be a number of bytes");
      }
      if (length > limit) {
        drain(exchange);
        throw tooLarge("is " + length + " bytes", limit);
      }
    }
    var in = exchange.getRequestBody();
    var bytes = in.readNBytes(Math.toIntExact(limit + 1));
    if (bytes.length > limit) {
      drain(exchange);
      throw tooLarge("is more than " + limit + " bytes", limit);
    }
    return bytes;
  }

  private static void drain(HttpExchange exchange) throws IOException {
    var in = exchange.getRequestBody();
    var sink = new byte[64 * 1024];
    long read = 0;
    int n;
    while (read < DRAIN_CAP && (n = in.read(sink)) > 0) {
      read += n;
    }
  }

  /** Client text echoed in an error: printable ASCII only, and short. */
  static String printable(String text) {
    return dev.quartermaster.server.http.HttpTransport.printable(text);
  }

  private static ApiException tooLarge(String size, long limit) {
    return new ApiException(
        new ApiError(
            413,
            Reason.PayloadTooLarge,
            "request body " + size + "; the limit is " + limit + " bytes",
            List.of()));
  }
}
