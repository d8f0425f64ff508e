package dev.quartermaster.api.logs;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * What part of a task's output is asked for, with Kubernetes' parameter names: the same query from
 * {@code qm logs} to the API server and from it to the agent, read by one {@link #parse}.
 *
 * @param follow keep sending output as it is written, until the task's process ends
 * @param previous the attempt before (an earlier task of this name on its node)
 * @param tailLines only the last N lines (with {@code sinceSeconds}: the last N of those)
 * @param sinceSeconds only what was written in the last S seconds (to the second)
 * @param limitBytes at most this many bytes
 */
public record LogOptions(
    boolean follow,
    boolean previous,
    OptionalLong tailLines,
    OptionalLong sinceSeconds,
    OptionalLong limitBytes) {
  public static final String FOLLOW = "follow";
  public static final String PREVIOUS = "previous";
  public static final String TAIL_LINES = "tailLines";
  public static final String SINCE_SECONDS = "sinceSeconds";
  public static final String LIMIT_BYTES = "limitBytes";
  public static final Set<String> PARAMS =
      Set.of(FOLLOW, PREVIOUS, TAIL_LINES, SINCE_SECONDS, LIMIT_BYTES);

  /** The whole current output, once. */
  public static final LogOptions ALL =
      new LogOptions(
          false, false, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

  public LogOptions {
    var v = new ArrayList<Violation>();
    if (follow && previous) {
      v.add(new Violation(FOLLOW, "cannot be used with previous: the previous attempt has ended"));
    }
    check(tailLines, 0, TAIL_LINES, v);
    check(sinceSeconds, 1, SINCE_SECONDS, v);
    check(limitBytes, 1, LIMIT_BYTES, v);
    if (!v.isEmpty()) {
      throw ApiException.badRequest(v.getFirst().field() + ": " + v.getFirst().rule(), v);
    }
  }

  private static void check(OptionalLong value, long min, String field, List<Violation> v) {
    if (value.isPresent() && value.getAsLong() < min) {
      v.add(new Violation(field, "must be >= " + min + ", got " + value.getAsLong()));
    }
  }

  /** The query string ({@code follow=true&tailLines=10}), empty for {@link #ALL}. */
  public String query() {
    var parts = new ArrayList<String>();
    if (follow) {
      parts.add(FOLLOW + "=true");
    }
    if (previous) {
      parts.add(PREVIOUS + "=true");
    }
    tailLines.ifPresent(n -> parts.add(TAIL_LINES + "=" + n));
    sinceSeconds.ifPresent(n -> parts.add(SINCE_SECONDS + "=" + n));
    limitBytes.ifPresent(n -> parts.add(LIMIT_BYTES + "=" + n));
    return String.join("&", parts);
  }

  /**
   * Reads the options from query parameters ({@code param} gives a decoded value by name); a value
   * that is not of its kind is a 400 naming the parameter.
   */
  public static LogOptions parse(Function<String, Optional<String>> param) {
    return new LogOptions(
        flag(param, FOLLOW),
        flag(param, PREVIOUS),
        number(param, TAIL_LINES),
        number(param, SINCE_SECONDS),
        number(param, LIMIT_BYTES));
  }

  private static boolean flag(Function<String, Optional<String>> param, String name) {
    var value = param.apply(name);
    if (value.isEmpty()) {
      return false;
    }
    return switch (value.get()) {
      case "true", "" -> true;
      case "false" -> false;
      default -> throw bad(name, "must be true or false, got '" + printable(value.get()) + "'");
    };
  }

  private static OptionalLong number(Function<String, Optional<String>> param, String name) {
    var value = param.apply(name);
    if (value.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(value.get()));
    } catch (NumberFormatException e) {
      throw bad(name, "must be a whole number, got '" + printable(value.get()) + "'");
    }
  }

  private static ApiException bad(String field, String rule) {
    return ApiException.badRequest(field + ": " + rule, List.of(new Violation(field, rule)));
  }

  private static String printable(String s) {
    var cut = s.length() > 40 ? s.substring(0, 40) + "..." : s;
    return URLEncoder.encode(cut, StandardCharsets.UTF_8);
  }
}
