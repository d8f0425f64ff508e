package dev.quartermaster.server;

import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.validation.Names;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where under {@code /api/v1/} a request goes. The raw path is split into segments before any
 * percent-decoding, so {@code %2e%2e%2fx} is one segment ({@code ../x}) that fails the name rule
 * rather than a path that walks anywhere.
 */
sealed interface ApiPath {
  Kind<?> kind();

  /** {@code /api/v1/<plural>} */
  record Collection(Kind<?> kind) implements ApiPath {}

  /** {@code /api/v1/<plural>/<name>} */
  record Item(Kind<?> kind, String name) implements ApiPath {}

  /** {@code /api/v1/<plural>/<name>/status} */
  record Status(Kind<?> kind, String name) implements ApiPath {}

  /** {@code /api/v1/tasks/<name>/log} */
  record Log(Kind<?> kind, String name) implements ApiPath {}

  /** The route label for metrics: bounded, never containing a name. */
  default String route() {
    return switch (this) {
      case Collection c -> HttpWire.API_PREFIX + "{plural}";
      case Item i -> HttpWire.API_PREFIX + "{plural}/{name}";
      case Status s -> HttpWire.API_PREFIX + "{plural}/{name}/status";
      case Log l -> HttpWire.API_PREFIX + "tasks/{name}/log";
    };
  }

  /** Parses a raw path that starts with {@link HttpWire#API_PREFIX}. */
  static ApiPath parse(String rawPath) {
    var segments = rawPath.substring(HttpWire.API_PREFIX.length()).split("/", -1);
    var plural = decode(segments[0], "kind");
    var kind =
        Kinds.byPlural(plural)
            .orElseThrow(
                () ->
                    ErrorResponses.notFound(
                        "unknown kind '"
                            + plural
                            + "'; the API serves "
                            + Kinds.ALL.stream()
                                .map(Kind::plural)
                                .collect(Collectors.joining(", "))));
    return switch (segments.length) {
      case 1 -> new Collection(kind);
      case 2 -> new Item(kind, name(kind, segments[1]));
      case 3 -> {
        if (segments[2].equals(HttpWire.LOG_SUFFIX) && kind.equals(Kinds.TASK)) {
          yield new Log(kind, name(kind, segments[1]));
        }
        if (!segments[2].equals(HttpWire.STATUS_SUFFIX)) {
          throw ErrorResponses.notFound(
              "no such path " + rawPath + "; the sub-resources are /status (and /log, of a task)");
        }
        yield new Status(kind, name(kind, segments[1]));
      }
      default -> throw ErrorResponses.notFound("no such path " + rawPath);
    };
  }

  private static String name(Kind<?> kind, String rawSegment) {
    var name = decode(rawSegment, "metadata.name");
    if (!Names.isObjectName(kind, name)) {
      throw ApiException.invalid(
          "name '" + name + "'",
          List.of(new Violation("metadata.name", Names.objectNameRule(kind))));
    }
    return name;
  }

  private static String decode(String raw, String field) {
    try {
      // '+' is literal in a path; URLDecoder would turn it into a space.
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ErrorResponses.badRequest(field, "malformed percent-encoding in the path");
    }
  }
}
