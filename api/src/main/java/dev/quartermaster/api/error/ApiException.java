package dev.quartermaster.api.error;

import java.util.List;

/** An API call failed; {@link #error()} says how, exactly as the server sent it. */
public final class ApiException extends RuntimeException {
  private final ApiError error;

  public ApiException(ApiError error) {
    super(error.message());
    this.error = error;
  }

  public ApiException(ApiError.Reason reason, String message) {
    this(ApiError.of(reason, message));
  }

  public static ApiException invalid(String what, List<Violation> violations) {
    return new ApiException(ApiError.invalid(what, violations));
  }

  public static ApiException badRequest(String message, List<Violation> violations) {
    return new ApiException(new ApiError(400, ApiError.Reason.BadRequest, message, violations));
  }

  public ApiError error() {
    return error;
  }

  public ApiError.Reason reason() {
    return error.reason();
  }

  public boolean is(ApiError.Reason reason) {
    return error.reason() == reason;
  }
}
