package dev.quartermaster.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A request's query parameters, strictly: a repeated or unknown parameter is a 400 naming it, so a
 * typo ({@code labelselector}) fails loudly instead of silently listing everything.
 */
record QueryParams(Map<String, String> values) {

  QueryParams {
    values = Map.copyOf(values);
  }

  static QueryParams parse(String rawQuery) {
    var values = new LinkedHashMap<String, String>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return new QueryParams(values);
    }
    for (var pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      var eq = pair.indexOf('=');
      var name = decode(eq < 0 ? pair : pair.substring(0, eq), "query");
      var value = eq < 0 ? "" : decode(pair.substring(eq + 1), name);
      if (values.putIfAbsent(name, value) != null) {
        throw ErrorResponses.badRequest(name, "must be given at most once");
      }
    }
    return new QueryParams(values);
  }

  /** Fails naming the first parameter that is not in {@code allowed}. */
  QueryParams allowOnly(Set<String> allowed) {
    for (var name : values.keySet()) {
      if (!allowed.contains(name)) {
        throw ErrorResponses.badRequest(
            name,
            "unknown query parameter; allowed here: "
                + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
    return this;
  }

  Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  boolean flag(String name) {
    return get(name)
        .map(
            v ->
                switch (v) {
                  case "true", "1" -> true;
                  case "false", "0" -> false;
                  default -> throw ErrorResponses.badRequest(name, "must be true or false");
                })
        .orElse(false);
  }

  long nonNegativeLong(String name, long fallback) {
    return get(name)
        .map(
            v -> {
              try {
                var n = Long.parseLong(v);
                if (n >= 0) {
                  return n;
                }
              } catch (NumberFormatException e) {
                // reported below
              }
              throw ErrorResponses.badRequest(name, "must be a non-negative integer");
            })
        .orElse(fallback);
  }

  private static String decode(String raw, String field) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ErrorResponses.badRequest(field, "malformed percent-encoding");
    }
  }
}
