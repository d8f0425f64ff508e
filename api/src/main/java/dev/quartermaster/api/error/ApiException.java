package dev.quartermaster.api.error;

import java.util.List;
import java.util.OptionalInt;

/** An API call failed; {@link #error()} says how, exactly as the server sent it. */
public final class ApiException extends RuntimeException {
  private final ApiError error;

  /** For a batch commit: the index of the write that failed on its own account, else -1. */
  private final int failedWrite;

  public ApiException(ApiError error) {
    this(error, -1);
  }

  private ApiException(ApiError error, int failedWrite) {
    super(error.message());
    this.error = error;
    this.failedWrite = failedWrite;
  }

  public ApiException(ApiError.Reason reason, String message) {
    this(ApiError.of(reason, message));
  }

  /**
   * {@code failure}, the error of write {@code index} of a batch commit, which failed on its own
   * account (its object changed since it was read, or is gone, or the write is invalid): the batch
   * applied nothing, and a caller that batched several decisions can commit the others again
   * without the one that wrote it.
   */
  public static ApiException ofWrite(ApiException failure, int index) {
    return new ApiException(failure.error, index);
  }

  /**
   * Which write of a batch commit failed on its own account (see {@link #ofWrite}); empty
   * otherwise.
   */
  public OptionalInt failedWrite() {
    return failedWrite < 0 ? OptionalInt.empty() : OptionalInt.of(failedWrite);
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
