package dev.quartermaster.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.io.IOException;
import java.util.List;

/**
 * Reads a request body up to a limit. A declared Content-Length over the limit is refused before
 * reading a byte; a chunked body is counted while read and refused at the first byte past the limit.
 * Either way the rest is never read (the connection is closed instead).
 */
final class RequestBody {
  private RequestBody() {}

  static byte[] read(HttpExchange exchange, long limit) throws IOException {
    var declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.strip());
      } catch (NumberFormatException e) {
        throw ErrorResponses.badRequest("Content-Length", "must be a number of bytes");
      }
      if (length > limit) {
        throw tooLarge("is " + length + " bytes", limit);
      }
    }
    var in = exchange.getRequestBody();
    var bytes = in.readNBytes(Math.toIntExact(limit + 1));
    if (bytes.length > limit) {
      throw tooLarge("is larger than that", limit);
    }
    return bytes;
  }

  private static ApiException tooLarge(String size, long limit) {
    return new ApiException(new ApiError(413, Reason.PayloadTooLarge,
        "request body " + size + "; the limit is " + limit + " bytes", List.of()));
  }
}
