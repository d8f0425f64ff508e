package dev.quartermaster.api.client.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Turns what came back over HTTP (or did not) into the {@link ApiException} a caller matches on.
 */
final class ResponseErrors {
  private static final int SNIPPET = 200;

  private ResponseErrors() {}

  /**
   * The server's own error when the body is an {@link ApiError}, unchanged; otherwise (a proxy's
   * page, a truncated body) an error with the HTTP status and the start of the body.
   */
  static ApiException fromResponse(int status, byte[] body, URI uri) {
    var error = ErrorBody.read(body).filter(e -> e.code() == status);
    if (error.isPresent()) {
      return new ApiException(error.get());
    }
    var text = new String(body, StandardCharsets.UTF_8).strip();
    var snippet = text.length() > SNIPPET ? text.substring(0, SNIPPET) + "..." : text;
    var message = "HTTP " + status + " from " + uri + (snippet.isEmpty() ? "" : ": " + snippet);
    return new ApiException(new ApiError(status, reasonFor(status), message, List.of()));
  }

  /** A transport failure: the request may not have reached the server, or its answer was lost. */
  static ApiException fromTransport(IOException e, URI base, URI uri) {
    if (causeOf(e, HttpConnectTimeoutException.class).isPresent()) {
      return new ApiException(
          Reason.Unavailable, "cannot reach the server at " + base + ": connect timed out");
    }
    var connect = causeOf(e, ConnectException.class);
    if (connect.isPresent()) {
      // The JDK's ConnectException often has no message; then it was refused.
      var why =
          Optional.ofNullable(connect.get().getMessage())
              .filter(m -> !m.isBlank())
              .filter(m -> !m.equalsIgnoreCase("connection refused"))
              .orElse("connection refused");
      return new ApiException(
          Reason.Unavailable, "cannot reach the server at " + base + ": " + why);
    }
    if (causeOf(e, java.net.UnknownHostException.class).isPresent()) {
      return new ApiException(
          Reason.Unavailable,
          "cannot reach the server at " + base + ": unknown host " + base.getHost());
    }
    if (e instanceof HttpTimeoutException) {
      return new ApiException(
          Reason.Unavailable, "the server at " + base + " did not answer " + uri + " in time");
    }
    var handshake = causeOf(e, javax.net.ssl.SSLHandshakeException.class);
    if (handshake.isPresent()) {
      var why = String.valueOf(handshake.get().getMessage());
      return new ApiException(
          Reason.Unavailable,
          why.contains("PKIX") || why.contains("certificate")
              ? "the server at "
                  + base
                  + " presented a certificate that the CA you trust did not sign ("
                  + why
                  + "); pass"
                  + " --ca-file with that server's <data>/tls/ca.crt, and compare its fingerprint with the one the server printed"
              : "TLS with the server at "
                  + base
                  + " failed: "
                  + why
                  + " (is it serving plain http?)");
    }
    var hint =
        uri.getScheme().equals("http")
                && String.valueOf(e.getMessage()).contains("received no bytes")
            ? " (is it serving https? then use https:// and --ca-file)"
            : "";
    return new ApiException(
        Reason.Unavailable, "request to " + uri + " failed: " + describe(e) + hint);
  }

  static ApiException interrupted(URI uri) {
    Thread.currentThread().interrupt();
    return new ApiException(Reason.Unavailable, "interrupted while waiting for " + uri);
  }

  static ApiException undecodable(URI uri, Exception e) {
    return new ApiException(
        Reason.Internal, "the server's answer to " + uri + " does not decode: " + e.getMessage());
  }

  private static Reason reasonFor(int status) {
    return switch (status) {
      case 400 -> Reason.BadRequest;
      case 401 -> Reason.Unauthorized;
      case 403 -> Reason.Forbidden;
      case 404 -> Reason.NotFound;
      case 405 -> Reason.MethodNotAllowed;
      case 409 -> Reason.Conflict;
      case 410 -> Reason.Gone;
      case 413 -> Reason.PayloadTooLarge;
      case 414 -> Reason.UriTooLong;
      case 422 -> Reason.Invalid;
      case 502, 503, 504 -> Reason.Unavailable;
      default -> Reason.Internal;
    };
  }

  private static Optional<Throwable> causeOf(Throwable e, Class<? extends Throwable> type) {
    for (var t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  private static String describe(Throwable e) {
    for (var t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return t.getMessage();
      }
    }
    return e.getClass().getSimpleName();
  }
}
