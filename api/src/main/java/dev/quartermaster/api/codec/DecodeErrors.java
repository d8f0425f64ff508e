package dev.quartermaster.api.codec;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Turns Jackson's decode failures into one violation naming the field path and the rule. */
final class DecodeErrors {
  private static final Pattern MISSING_CREATOR =
      Pattern.compile("Missing required creator property '([^']+)'");
  private static final Pattern DUPLICATE = Pattern.compile("Duplicate (?:field|key) '([^']*)'");

  private DecodeErrors() {}

  static ApiException toApiException(Throwable e, String prefix) {
    var violation = violationOf(e);
    return ApiException.badRequest(prefix + violation, List.of(violation));
  }

  static Violation violationOf(Throwable e) {
    if (e instanceof ApiException api && !api.error().details().isEmpty()) {
      return api.error().details().getFirst();
    }
    var text =
        e instanceof JacksonException j ? j.getOriginalMessage() : String.valueOf(e.getMessage());
    var duplicate = DUPLICATE.matcher(String.valueOf(text));
    if (duplicate.find()) {
      // Last-wins would silently drop what the user wrote first: name the key so they can pick one.
      var at = e instanceof JsonMappingException m ? pathOf(m) : parsePath(e);
      var key = duplicate.group(1);
      return new Violation(
          at.endsWith(key) ? at : join(at, key), "duplicate key '" + key + "'; give each key once");
    }
    if (!(e instanceof JsonMappingException m)) {
      return new Violation("", "malformed document: " + firstLine(text));
    }
    var path = pathOf(m);
    return switch (m) {
      case UnrecognizedPropertyException u -> new Violation(path, "unknown field");
      case InvalidTypeIdException t when t.getTypeId() == null || t.getTypeId().isEmpty() ->
          new Violation(join(path, "kind"), "required (one of " + kindNames() + ")");
      case InvalidTypeIdException t ->
          new Violation(
              join(path, "kind"),
              "unknown kind '" + t.getTypeId() + "' (one of " + kindNames() + ")");
      case InvalidFormatException f when f.getTargetType() != null && f.getTargetType().isEnum() ->
          new Violation(
              path, "must be one of " + Arrays.toString(f.getTargetType().getEnumConstants()));
      case InvalidFormatException f ->
          new Violation(path, "must be " + typeName(f.getTargetType()));
      case MismatchedInputException mi -> mismatched(mi, path);
      // A record's constructor copies lists and maps, and a copy refuses null: a null entry ("[~]",
      // {"a": null}) is the user's mistake, not a server fault, and Jackson's text names a Java
      // class.
      case ValueInstantiationException vi when vi.getCause() instanceof NullPointerException ->
          new Violation(path, "must not hold null: a list entry or map value is empty");
      case ValueInstantiationException vi -> new Violation(path, "is not a valid value");
      default -> new Violation(path, firstLine(m.getOriginalMessage()));
    };
  }

  private static Violation mismatched(MismatchedInputException mi, String path) {
    var missing = MISSING_CREATOR.matcher(String.valueOf(mi.getOriginalMessage()));
    if (missing.find()) {
      var name = missing.group(1);
      return new Violation(path.endsWith(name) ? path : join(path, name), "required");
    }
    var type = mi.getTargetType();
    if (type == dev.quartermaster.api.meta.ApiObject.class) {
      return new Violation(path, "expected an object with kind, metadata, spec");
    }
    if (type != null && type.isEnum()) {
      return new Violation(path, "must be one of " + Arrays.toString(type.getEnumConstants()));
    }
    return new Violation(path, "must be " + typeName(type));
  }

  private static String pathOf(JsonMappingException m) {
    var sb = new StringBuilder();
    for (var ref : m.getPath()) {
      if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      } else if (ref.getFieldName() != null) {
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(ref.getFieldName());
      }
    }
    return sb.toString();
  }

  /** The object path a streaming parser was in when it failed, like {@code spec.env}. */
  private static String parsePath(Throwable e) {
    if (!(e instanceof com.fasterxml.jackson.core.JsonProcessingException p)
        || !(p.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser parser)) {
      return "";
    }
    var names = new java.util.ArrayDeque<String>();
    for (var ctx = parser.getParsingContext(); ctx != null; ctx = ctx.getParent()) {
      if (ctx.inObject() && ctx.getParent() != null && ctx.getParent().getCurrentName() != null) {
        names.addFirst(ctx.getParent().getCurrentName());
      }
    }
    return String.join(".", names);
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  private static String typeName(Class<?> type) {
    if (type == null) {
      return "of the right type";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "an integer";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (java.util.List.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (type == dev.quartermaster.api.meta.ApiObject.class) {
      return "an object with kind, metadata, spec";
    }
    if (java.util.Map.class.isAssignableFrom(type) || type.isRecord() || type.isInterface()) {
      return "an object";
    }
    if (type == java.time.Instant.class) {
      return "a timestamp like 2026-01-01T00:00:00Z";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    // Never a Java class name: it tells the user nothing and an attacker too much.
    return "a value of the right type";
  }

  private static String kindNames() {
    return Kinds.ALL.stream().map(Kind::name).collect(Collectors.joining(", "));
  }

  /**
   * The first line of Jackson's message, without the Java it sometimes names: its limits say
   * "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)", which tells a user nothing.
   */
  private static String firstLine(String text) {
    var line = Optional.ofNullable(text).map(t -> t.lines().findFirst().orElse("")).orElse("");
    return JAVA_REFERENCE.matcher(line).replaceAll("").strip();
  }

  private static final Pattern JAVA_REFERENCE =
      Pattern.compile(",? *from `[A-Za-z.]+\\(\\)`|\\(use `[^`]*`[^)]*\\)");
}
