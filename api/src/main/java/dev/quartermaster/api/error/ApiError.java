package dev.quartermaster.api.error;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The body of every error response: HTTP status {@code code}, a {@code reason} a program can match,
 * a one-line {@code message} and, for bad input, every violated rule.
 */
public record ApiError(int code, Reason reason, String message, List<Violation> details) {

  public ApiError {
    reason = reason == null ? Reason.Internal : reason;
    message = message == null ? "" : message;
    details = details == null ? List.of() : List.copyOf(details);
  }

  public static ApiError of(Reason reason, String message) {
    return new ApiError(reason.code(), reason, message, List.of());
  }

  public static ApiError invalid(String what, List<Violation> violations) {
    var shown = cap(violations);
    var text = shown.stream().map(Violation::toString).collect(Collectors.joining("; "));
    return new ApiError(
        Reason.Invalid.code(), Reason.Invalid, what + " is invalid: " + text, shown);
  }

  /** The most violations an error lists; 50,000 bad label keys must not make a 13 MB answer. */
  public static final int MAX_DETAILS = 100;

  /** This error with at most {@link #MAX_DETAILS} details and a message of bounded length. */
  public ApiError capped() {
    var shownMessage =
        message.length() <= 16_384 ? message : message.substring(0, 16_384) + " ... (cut)";
    var shown = cap(details);
    return shownMessage.equals(message) && shown.size() == details.size()
        ? this
        : new ApiError(code, reason, shownMessage, shown);
  }

  /** The first {@link #MAX_DETAILS} violations, then one saying how many more there were. */
  private static List<Violation> cap(List<Violation> violations) {
    if (violations.size() <= MAX_DETAILS) {
      return violations;
    }
    var shown = new java.util.ArrayList<>(violations.subList(0, MAX_DETAILS));
    shown.add(new Violation("", "... and " + (violations.size() - MAX_DETAILS) + " more"));
    return List.copyOf(shown);
  }

  /** The closed set of failure reasons, each with its HTTP status. */
  public enum Reason {
    BadRequest(400),
    Unauthorized(401),
    Forbidden(403),
    NotFound(404),
    MethodNotAllowed(405),
    AlreadyExists(409),
    Conflict(409),
    RequestTimeout(408),
    Gone(410),
    PayloadTooLarge(413),
    UriTooLong(414),
    UnsupportedMediaType(415),
    HeadersTooLarge(431),
    Invalid(422),
    Internal(500),
    NotImplemented(501),
    Unavailable(503),
    VersionNotSupported(505);

    private final int code;

    Reason(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }
}
