package dev.quartermaster.api.client.http;

import dev.quartermaster.api.meta.Kind;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP API's wire conventions, shared by the server and {@link HttpApiClient} so that both
 * sides name each path, header and query parameter the same way.
 *
 * <ul>
 *   <li>{@code /api/v1/<plural>}: {@code POST} create, {@code GET} list ({@link ListDocument}) or,
 *       with {@code watch=true}, a stream of {@link WatchLine}s, one JSON document per line;
 *   <li>{@code /api/v1/<plural>/<name>}: {@code GET}, {@code PUT} (update), {@code DELETE};
 *   <li>{@code /api/v1/<plural>/<name>/status}: {@code PUT} (update status).
 * </ul>
 *
 * <p>Errors are an {@link dev.quartermaster.api.error.ApiError} as JSON with its code as the HTTP
 * status.
 */
public final class HttpWire {
  public static final String API_PREFIX = "/api/v1/";
  public static final String STATUS_SUFFIX = "status";

  /**
   * A task's output: {@code /api/v1/tasks/<name>/log}, with {@link
   * dev.quartermaster.api.logs.LogOptions}.
   */
  public static final String LOG_SUFFIX = "log";

  public static final String JSON = "application/json";

  /**
   * On a delete's response: {@value #DELETED} when the object is gone (the body is its last state),
   * {@value #TERMINATING} when it waits for its finalizers (the body carries {@code deletedAt}).
   */
  public static final String DELETE_HEADER = "X-Qm-Delete";

  public static final String DELETED = "deleted";
  public static final String TERMINATING = "terminating";

  /**
   * On a 410 answer to a watch: the store's compacted revision, so the client can tell its handler
   * without parsing prose. The same number is in the error's {@code details} for people.
   */
  public static final String COMPACTED_REVISION_HEADER = "X-Qm-Compacted-Revision";

  public static final String PARAM_WATCH = "watch";

  /**
   * {@code dryRun=All} on a create or update: judged as the write would be (decoding, the rules of
   * the kind, access, the name taken or the revision current), nothing stored.
   */
  public static final String PARAM_DRY_RUN = "dryRun";

  public static final String DRY_RUN_ALL = "All";
  public static final String PARAM_REVISION = "revision";
  public static final String PARAM_LABEL_SELECTOR = "labelSelector";

  /**
   * On a watch: the node whose changes it asks for ({@link
   * dev.quartermaster.api.client.WatchScope.Node}).
   */
  public static final String PARAM_NODE = "node";

  /**
   * On a GET: {@code as=table} answers the kind's table ({@link
   * dev.quartermaster.api.table.ObjectTable}), not its objects.
   */
  public static final String PARAM_AS = "as";

  public static final String AS_TABLE = "table";

  /** On a list: at most this many objects, and a continue token when there are more. */
  public static final String PARAM_LIMIT = "limit";

  /** On a list: the page after the one whose {@code continue} this is. */
  public static final String PARAM_CONTINUE = "continue";

  /** The query of one page of a list ({@code &limit=N[&continue=T]}), to append to another. */
  public static String pageQuery(dev.quartermaster.api.client.ListPage page) {
    return "&"
        + PARAM_LIMIT
        + "="
        + page.limit()
        + page.continueToken()
            .map(t -> "&" + PARAM_CONTINUE + "=" + encodeQueryValue(t))
            .orElse("");
  }

  /** On a GET of one node: {@code as=mig} answers its MIG GPUs as the dashboard draws them. */
  public static final String AS_MIG = "mig";

  private HttpWire() {}

  public static String collectionPath(Kind<?> kind) {
    return API_PREFIX + kind.plural();
  }

  public static String objectPath(Kind<?> kind, String name) {
    return collectionPath(kind) + "/" + encodeSegment(name);
  }

  public static String statusPath(Kind<?> kind, String name) {
    return objectPath(kind, name) + "/" + STATUS_SUFFIX;
  }

  /**
   * Percent-encodes everything but RFC 3986 unreserved characters, so that a hostile name such as
   * {@code ../x} stays one path segment ({@code ..%2Fx}) and the server rejects it by name instead
   * of resolving it as a path.
   */
  public static String encodeSegment(String text) {
    // "." and ".." are unreserved characters but path operators as segments: encode them too.
    return text.equals(".") || text.equals("..") ? text.replace(".", "%2E") : percentEncode(text);
  }

  /** Encodes a query parameter value the same way (space as {@code %20}, never {@code +}). */
  public static String encodeQueryValue(String text) {
    return percentEncode(text);
  }

  private static String percentEncode(String text) {
    var out = new StringBuilder(text.length());
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (isUnreserved(c)) {
        out.append((char) c);
      } else {
        out.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  private static boolean isUnreserved(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }
}
