package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What RFC 9110/9112 tell a server to refuse in a request's head, which the codec lets through: a
 * version other than HTTP/1.0 or 1.1 (505; the codec reads any {@code HTTP/x.y}); a field that
 * takes one value given more than once (400): with two {@code Authorization} lines, which one
 * authenticates is a guess, and a proxy in front may have guessed the other; an HTTP/1.1 request
 * without {@code Host} (400, RFC 9112 3.2); and any transfer coding but a lone {@code chunked}.
 *
 * <p>The codec reads a body as chunked when {@code chunked} is the last coding listed, and ignores
 * any other coding: the body of {@code Transfer-Encoding: gzip} then counts as nothing, and its
 * bytes are read as the next request, which a proxy in front (that knew where the body ended) never
 * saw: request smuggling. So a coding this server does not implement is 501 (RFC 9112 6.1), a list
 * that is not one {@code chunked} is 400, and either closes the connection ({@link RequestReader}
 * trusts nothing after a refused head).
 */
final class RequestHead {
  /**
   * Fields defined as a single value; a repeated one is not a list to join. {@code
   * Transfer-Encoding} is a list by definition, but the only one this server reads has one element.
   */
  static final List<CharSequence> SINGLETONS =
      List.of(
          HttpHeaderNames.AUTHORIZATION,
          HttpHeaderNames.HOST,
          HttpHeaderNames.CONTENT_TYPE,
          HttpHeaderNames.CONTENT_LENGTH,
          HttpHeaderNames.TRANSFER_ENCODING);

  private static final String CHUNKED = "chunked";

  static final String BOTH_FRAMINGS =
      "a request carries both Transfer-Encoding and Content-Length (RFC 9112 6.3): a proxy may"
          + " frame its body by the other one; send one of them";

  static final String CODING_IN_HTTP_1_0 =
      "an HTTP/1.0 request has no Transfer-Encoding (RFC 9112 6.1): frame its body with"
          + " Content-Length, or send HTTP/1.1";

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
            bad(
                "header "
                    + name
                    + " is given "
                    + count
                    + " times; it takes one value: send it once"));
      }
    }
    if (version.equals(HttpVersion.HTTP_1_1) && !request.headers().contains(HttpHeaderNames.HOST)) {
      return Optional.of(
          bad("an HTTP/1.1 request must carry a Host header (RFC 9112 3.2): send 'Host: <host>'"));
    }
    var coding = request.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
    if (coding == null) {
      return Optional.empty();
    }
    if (request.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
      // The codec refuses this pair itself when the coding is chunked; a proxy may frame by either.
      return Optional.of(bad(BOTH_FRAMINGS));
    }
    return transferCoding(coding);
  }

  /** A {@code Transfer-Encoding} value: nothing wrong only when it is {@code chunked} alone. */
  private static Optional<ApiError> transferCoding(String value) {
    var codings = List.of(value.split(",", -1));
    for (var raw : codings) {
      var coding = raw.strip();
      if (!coding.equalsIgnoreCase(CHUNKED) && !coding.isEmpty()) {
        return Optional.of(
            new ApiError(
                501,
                Reason.NotImplemented,
                "transfer coding '"
                    + HttpTransport.printable(coding)
                    + "' is not implemented (RFC 9112 6.1): this server reads a body framed by"
                    + " Content-Length or by 'Transfer-Encoding: chunked' alone",
                List.of()));
      }
    }
    if (codings.size() != 1 || codings.getFirst().isBlank()) {
      return Optional.of(
          bad(
              "Transfer-Encoding '"
                  + HttpTransport.printable(value.toLowerCase(Locale.ROOT))
                  + "' is not one coding: send 'Transfer-Encoding: chunked' or a Content-Length"));
    }
    return Optional.empty();
  }

  private static ApiError bad(String message) {
    return new ApiError(400, Reason.BadRequest, message, List.of());
  }
}
