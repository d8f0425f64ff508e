package dev.quartermaster.cli.commands;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.time.Duration;
import java.util.Optional;

/**
 * Which failures of an agent's start are the cluster's passing state, waited for, and how long
 * between tries: a server or its store that does not answer now (503, a timeout, 5xx) may answer in
 * a moment; a refusal (401, 403, 4xx) says the same at every try.
 */
final class StartRetry {
  static final Duration LONGEST = Duration.ofSeconds(30);

  private StartRetry() {}

  /**
   * The answer of the cluster's passing state that made the start fail ({@code failure} itself or
   * what it wraps: the ledger's cross-check wraps the list it could not make), or empty for a
   * failure that waiting does not change.
   */
  static Optional<ApiException> passing(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ApiException e) {
        return waitsFor(e) ? Optional.of(e) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  static boolean waitsFor(ApiException e) {
    var reason = e.reason();
    return reason == Reason.Unavailable
        || reason == Reason.RequestTimeout
        || reason.code() >= 500 && reason != Reason.NotImplemented;
  }

  /** Twice the wait, at most {@link #LONGEST}. */
  static Duration next(Duration wait) {
    var doubled = wait.multipliedBy(2);
    return doubled.compareTo(LONGEST) > 0 ? LONGEST : doubled;
  }
}
