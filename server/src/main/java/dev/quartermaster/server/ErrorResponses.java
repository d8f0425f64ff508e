package dev.quartermaster.server;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every failure becomes an {@link ApiError} body with its code as the HTTP status. An {@link
 * ApiException} is sent exactly as raised; a store failure is a 503 (a corrupt stored value a 500
 * naming its key, as retrying cannot help) and a write over the store's limits a 413; anything else
 * is a bug, logged with its stack trace and answered with a generic 500 that names the request, so
 * nothing internal leaks to the client.
 */
final class ErrorResponses {
  private static final Logger log = LoggerFactory.getLogger(ErrorResponses.class);

  private ErrorResponses() {}

  static ApiError toError(Throwable failure, long requestId, String method, String path) {
    if (failure instanceof ApiException api) {
      return api.error();
    }
    if (failure instanceof dev.quartermaster.store.StoreLimitException limit) {
      log.warn(
          "event=store_limit request={} method={} path={} cause='{}'",
          requestId,
          method,
          path,
          limit.getMessage());
      return ApiError.of(
          Reason.PayloadTooLarge, "the store refuses this write: " + limit.getMessage());
    }
    if (failure instanceof dev.quartermaster.store.CorruptValueException corrupt) {
      // Not unavailable (a retry reads the same bytes) and never a guess at the object: a 500
      // naming the key.
      log.error(
          "event=store_corrupt_value request={} method={} path={} key='{}' revision={} cause='{}'",
          requestId,
          method,
          path,
          corrupt.key(),
          corrupt.revision(),
          corrupt.getMessage());
      return ApiError.of(
          Reason.Internal, "the store holds a corrupt value: " + corrupt.getMessage());
    }
    if (failure instanceof dev.quartermaster.store.StoreException store) {
      // The store is closed or its disk failed: say so, the client may retry elsewhere or later.
      log.error("event=store_error request={} method={} path={}", requestId, method, path, failure);
      return ApiError.of(Reason.Unavailable, "the store is unavailable: " + store.getMessage());
    }
    log.error(
        "event=internal_error request={} method={} path={}", requestId, method, path, failure);
    return ApiError.of(
        Reason.Internal, "internal error; the server log has the details of request " + requestId);
  }

  static Reply reply(ApiError uncapped) {
    var error = uncapped.capped();
    var status = error.code() >= 400 && error.code() <= 599 ? error.code() : 500;
    var reply = Reply.json(status, error);
    return switch (error.reason()) {
      case Unauthorized -> reply.withHeader("WWW-Authenticate", "Bearer realm=\"quartermaster\"");
      case PayloadTooLarge ->
          reply.withHeader("Connection", "close"); // a body past the drain cap was not read
      default -> reply;
    };
  }

  static ApiException notFound(String message) {
    return new ApiException(Reason.NotFound, message);
  }

  static ApiException methodNotAllowed(String method, String path, String allowed) {
    return new ApiException(
        new ApiError(
            405,
            Reason.MethodNotAllowed,
            method + " is not allowed on " + path + "; allowed: " + allowed,
            List.of()));
  }

  static ApiException unauthorized(String message) {
    return new ApiException(Reason.Unauthorized, message);
  }

  static ApiException badRequest(String field, String rule) {
    return ApiException.badRequest(field + ": " + rule, List.of(new Violation(field, rule)));
  }
}
