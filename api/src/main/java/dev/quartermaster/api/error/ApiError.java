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
    var text = violations.stream().map(Violation::toString).collect(Collectors.joining("; "));
    return new ApiError(Reason.Invalid.code(), Reason.Invalid, what + " is invalid: " + text, violations);
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
    Gone(410),
    PayloadTooLarge(413),
    Invalid(422),
    Internal(500),
    Unavailable(503);

    private final int code;

    Reason(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }
}
