package dev.quartermaster.api.codec;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.JacksonYAMLParseException;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.MarkedYAMLException;

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
    var read = readFailure(e);
    if (read != null) {
      return unreadable(e, read);
    }
    if (!(e instanceof JsonMappingException m)) {
      return new Violation("", "malformed document: " + plain(firstLine(text)));
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
      default -> new Violation(path, plain(firstLine(m.getOriginalMessage())));
    };
  }

  /**
   * The parser's own failure in {@code e} or its causes (a number out of range, a token JSON does
   * not have, broken syntax, a limit passed), or null when the document was read and only its
   * mapping onto a type failed.
   */
  private static JsonProcessingException readFailure(Throwable e) {
    for (var t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof JsonProcessingException p && !(p instanceof JsonMappingException)) {
        return p;
      }
    }
    return null;
  }

  /** What the parser could not read, in words: the field it was in, and the rule. */
  private static Violation unreadable(Throwable e, JsonProcessingException read) {
    var at = e instanceof JsonMappingException m ? pathOf(m) : "";
    var inParser = parsePath(read);
    if (at.isEmpty() || inParser.startsWith(at)) {
      at = inParser; // the parser knows the field whose value it was reading; the mapping not
    }
    if (read instanceof InputCoercionException coercion) {
      return new Violation(at, range(coercion.getTargetType()));
    }
    var text = firstLine(read.getOriginalMessage());
    for (var rule : NUMBER_RULES) {
      var found = rule.pattern().matcher(text);
      if (found.matches()) {
        return new Violation(at, found.replaceFirst(rule.words()));
      }
    }
    if (read instanceof StreamConstraintsException) {
      return new Violation(at, plain(text)); // a limit, which its text names plainly
    }
    if (read.getCause() instanceof MarkedYAMLException yaml) {
      var mark = yaml.getProblemMark();
      return new Violation(
          at,
          "not valid YAML"
              + (mark == null
                  ? ""
                  : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1))
              + ": "
              + plain(firstLine(String.valueOf(yaml.getProblem()))));
    }
    var where = read.getLocation();
    var format = read instanceof JacksonYAMLParseException ? "YAML" : "JSON";
    return new Violation(
        at,
        "not valid "
            + format
            + (where == null || where.getLineNr() < 1
                ? ""
                : " at line " + where.getLineNr() + ", column " + where.getColumnNr())
            + ": "
            + plain(text));
  }

  private static String range(Class<?> type) {
    if (type == int.class || type == Integer.class) {
      return "must be an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE;
    }
    if (type == long.class || type == Long.class) {
      return "must be an integer between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE;
    }
    return "is a number too large for this field";
  }

  /** A parser message about a number, matched from its start, and the same said plainly. */
  private record NumberRule(Pattern pattern, String words) {}

  private static final List<NumberRule> NUMBER_RULES =
      List.of(
          new NumberRule(
              Pattern.compile("^Non-standard token '([^']*)'.*"), "$1 is not a number JSON allows"),
          new NumberRule(
              Pattern.compile("^Malformed numeric value '([^']*)'.*"),
              "'$1' is not a number this field allows (no NaN or infinity)"),
          new NumberRule(
              Pattern.compile("^.*numbers to have plus signs.*"),
              "a JSON number has no leading '+': write 1, not +1"),
          new NumberRule(
              Pattern.compile("^.*Leading zeroes not allowed.*"),
              "a JSON number has no leading zero: write 1, not 01"),
          new NumberRule(
              Pattern.compile("^.*Decimal point not followed by a digit.*"),
              "a number's decimal point must be followed by a digit"),
          new NumberRule(
              Pattern.compile("^.*to follow minus sign.*"), "a '-' must be followed by a digit"),
          new NumberRule(
              Pattern.compile(
                  "^Number value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)\\).*"),
              "a number may have at most $2 digits; this one has $1"));

  /** Phrases of the parser's messages that name its own settings and tokens, said plainly. */
  private record Phrase(Pattern pattern, java.util.function.Function<MatchResult, String> words) {}

  private static final List<Phrase> PHRASES =
      List.of(
          new Phrase(
              Pattern.compile(
                  ":? *maybe a \\(non-standard\\) comment\\? \\(not recognized as one since Feature"
                      + " '[^']*' not enabled for parser\\)"),
              m -> ": JSON has no comments"),
          new Phrase(Pattern.compile(":? *enable `[^`]*` to allow"), m -> ""),
          new Phrase(Pattern.compile(" *\\(for (Object|Array) starting at \\[Source.*$"), m -> ""),
          new Phrase(
              Pattern.compile("\\(\\(CTRL-CHAR, code (\\d+)\\)\\)"),
              m -> "U+%04X".formatted(Integer.parseInt(m.group(1)))),
          new Phrase(
              Pattern.compile("Illegal unquoted character"), m -> "a control character such as"),
          new Phrase(Pattern.compile("\\('(.)' \\(code \\d+\\)\\)"), m -> "'" + m.group(1) + "'"),
          new Phrase(Pattern.compile("'(.)' \\(code \\d+\\)"), m -> "'" + m.group(1) + "'"),
          new Phrase(Pattern.compile("\\. \\(Do not use [^)]* for indentation\\)"), m -> ""),
          new Phrase(
              Pattern.compile(
                  "(a valid value )?\\(JSON String, Number, Array, Object or token 'null', 'true' or"
                      + " 'false'\\)"),
              m -> "a string, number, list, object, true, false or null"),
          new Phrase(
              Pattern.compile(
                  "JSON String, Number, Array, Object or token 'null', 'true' or 'false'"),
              m -> "a string, number, list, object, true, false or null"),
          new Phrase(Pattern.compile("Object entries"), m -> "object fields"),
          new Phrase(Pattern.compile("\\bVALUE_STRING\\b"), m -> "a string"),
          new Phrase(Pattern.compile("\\bVALUE_NUMBER_INT\\b"), m -> "an integer"),
          new Phrase(Pattern.compile("\\bVALUE_NUMBER_FLOAT\\b"), m -> "a number"),
          new Phrase(Pattern.compile("\\bVALUE_(TRUE|FALSE)\\b"), m -> "true or false"),
          new Phrase(Pattern.compile("\\bVALUE_NULL\\b"), m -> "null"),
          new Phrase(Pattern.compile("\\bSTART_OBJECT\\b"), m -> "'{'"),
          new Phrase(Pattern.compile("\\bEND_OBJECT\\b"), m -> "'}'"),
          new Phrase(Pattern.compile("\\bSTART_ARRAY\\b"), m -> "'['"),
          new Phrase(Pattern.compile("\\bEND_ARRAY\\b"), m -> "']'"),
          new Phrase(Pattern.compile("\\bFIELD_NAME\\b"), m -> "a field name"),
          new Phrase(
              Pattern.compile("Numeric value \\((-?\\d+)\\) out of range of (int|long)[^)]*\\)"),
              m -> "the number " + m.group(1) + " is too large"));

  /** What still reads as the parser's vocabulary after {@link #PHRASES}: not shown at all. */
  private static final Pattern INTERNAL =
      Pattern.compile(
          "Feature|Jackson|jackson|fasterxml|`|\\(code \\d+\\)|\\[Source|[A-Z]+_[A-Z_]+");

  /** The parser's message in words a user can act on; its own settings and classes never. */
  static String plain(String message) {
    var out = message;
    for (var phrase : PHRASES) {
      out =
          phrase
              .pattern()
              .matcher(out)
              .replaceAll(m -> Matcher.quoteReplacement(phrase.words().apply(m)));
    }
    out = out.strip();
    if (!out.isEmpty()
        && Character.isUpperCase(out.charAt(0))
        && !out.startsWith("JSON")
        && !out.startsWith("YAML")
        && !out.startsWith("UTF")) {
      out = Character.toLowerCase(out.charAt(0)) + out.substring(1);
    }
    return INTERNAL.matcher(out).find() ? "unexpected input here" : out;
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

  /**
   * The path a streaming parser was at when it failed, like {@code spec.groups[0].replicas}: the
   * field or list entry it was reading, in each object and list it was inside.
   */
  private static String parsePath(Throwable e) {
    if (!(e instanceof JsonProcessingException p)
        || !(p.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser parser)) {
      return "";
    }
    var steps = new java.util.ArrayDeque<String>();
    for (var ctx = parser.getParsingContext(); ctx != null; ctx = ctx.getParent()) {
      if (ctx.inObject() && ctx.getCurrentName() != null) {
        steps.addFirst("." + ctx.getCurrentName());
      } else if (ctx.inArray() && ctx.getCurrentIndex() >= 0) {
        steps.addFirst("[" + ctx.getCurrentIndex() + "]");
      }
    }
    var path = String.join("", steps);
    return path.startsWith(".") ? path.substring(1) : path;
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
