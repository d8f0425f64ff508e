package dev.quartermaster.api.client.http;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** How one call failed on each server it tried, in order; the error names them all. */
final class Failures {
  private final int servers;
  private final List<ApiException> failures = new ArrayList<>();

  Failures(int servers) {
    this.servers = servers;
  }

  void add(ApiException failure) {
    failures.add(failure);
  }

  /**
   * The call's error. One server tried: its failure as it was. Every server tried: each one's
   * failure. {@code writeStopped}: a write that failed after it was sent stopped short of the
   * servers left, which the error says so that nobody wonders why they were not tried.
   */
  ApiException error(boolean writeStopped) {
    if (failures.size() == 1 && !writeStopped) {
      return failures.getFirst();
    }
    var each = failures.stream().map(Throwable::getMessage).collect(Collectors.joining("; "));
    var message =
        writeStopped
            ? each
                + " (not sent to the other "
                + (servers - failures.size() == 1
                    ? "server"
                    : (servers - failures.size()) + " servers")
                + ": a write whose answer was lost may have landed)"
            : "none of the " + servers + " servers answered: " + each;
    return new ApiException(Reason.Unavailable, message);
  }
}
