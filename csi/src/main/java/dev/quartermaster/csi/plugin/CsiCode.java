package dev.quartermaster.csi.plugin;

/** The gRPC status codes CSI gives meaning to, with what the spec says a caller should do. */
public enum CsiCode {
  CANCELLED,
  UNKNOWN,
  INVALID_ARGUMENT,
  DEADLINE_EXCEEDED,
  NOT_FOUND,
  ALREADY_EXISTS,
  PERMISSION_DENIED,
  RESOURCE_EXHAUSTED,
  FAILED_PRECONDITION,
  ABORTED,
  OUT_OF_RANGE,
  UNIMPLEMENTED,
  INTERNAL,
  UNAVAILABLE,
  DATA_LOSS,
  UNAUTHENTICATED;

  /**
   * Whether the same call may simply be made again after a backoff: the operation is pending
   * (ABORTED), the plugin was unreachable (UNAVAILABLE) or slow (DEADLINE_EXCEEDED, where it may
   * even have finished — every call we make is idempotent). Everything else needs something to
   * change first and is surfaced as a condition naming the call.
   */
  public boolean retryable() {
    return this == ABORTED || this == UNAVAILABLE || this == DEADLINE_EXCEEDED || this == CANCELLED;
  }
}
