package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.util.List;
import java.util.Optional;

/**
 * What RFC 9110/9112 tell a server to refuse in a request's head, which the codec lets through: a
 * version other than HTTP/1.0 or 1.1 (505; the codec reads any {@code HTTP/x.y}), and a field that
 * takes one value given more than once (400): with two {@code Authorization} lines, which one
 * authenticates is a guess, and a proxy in front may have guessed the other.
 */
final class RequestHead {
  /** Fields defined as a single value; a repeated one is not a list to join. */
  static final List<CharSequence> SINGLETONS =
      List.of(
          HttpHeaderNames.AUTHORIZATION,
          HttpHeaderNames.HOST,
          HttpHeaderNames.CONTENT_TYPE,
          HttpHeaderNames.CONTENT_LENGTH);

  private RequestHead() {}

  static Optional<ApiError> problem(HttpRequest request) {
    var version = request.protocolVersion();
    if (version.majorVersion() != 1 || version.minorVersion() > 1) {
      return Optional.of(
          new ApiError(
              505,
              Reason.VersionNotSupported,
              version.text() + " is not supported: this server speaks HTTP/1.1 (and HTTP/1.0)",
              List.of()));
    }
    for (var name : SINGLETONS) {
      int count = request.headers().getAll(name).size();
      if (count > 1) {
        return Optional.of(
            new ApiError(
                400,
                Reason.BadRequest,
                "header "
                    + name
                    + " is given "
                    + count
                    + " times; it takes one value: send it once",
                List.of()));
      }
    }
    return Optional.empty();
  }
}
