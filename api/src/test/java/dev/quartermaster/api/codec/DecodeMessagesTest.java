package dev.quartermaster.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every decoding error a client can provoke with a JSON body or a YAML manifest is said in plain
 * words naming the field and the rule: never the parser's feature flags, its classes or its Java
 * types (issue 43, item 14).
 */
class DecodeMessagesTest {
  /** What only the parser's own vocabulary says: a user can act on none of it. */
  private static final Pattern INTERNALS =
      Pattern.compile(
          "Feature|Jackson|jackson|fasterxml|snakeyaml|StreamRead|StreamWrite|JsonToken|Exception"
              + "|out of range of|`|\\(code \\d+\\)|CTRL-CHAR|START_|END_|VALUE_|FIELD_NAME"
              + "|java\\.|Numeric value \\(|reference chain|\\[Source|non-standard|\\bint\\b|\\blong\\b");

  private static final String WORKLOAD =
      "{\"kind\":\"Workload\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"groups\":[{\"name\":\"g\","
          + "\"replicas\":%s,\"template\":{\"command\":[\"true\"]}}]}}";

  private static String replicas(String value) {
    return WORKLOAD.formatted(value);
  }

  private static Map<String, byte[]> jsonCorpus() {
    var c = new LinkedHashMap<String, byte[]>();
    var put =
        (java.util.function.BiConsumer<String, String>)
            (name, text) -> c.put(name, text.getBytes(StandardCharsets.UTF_8));
    put.accept("NaN", replicas("NaN"));
    put.accept("Infinity", replicas("Infinity"));
    put.accept("-Infinity", replicas("-Infinity"));
    put.accept("plus sign", replicas("+1"));
    put.accept("over int", replicas("99999999999"));
    put.accept("under int", replicas("-2147483649"));
    put.accept("forty digits", replicas("9".repeat(40)));
    put.accept("hex", replicas("0x10"));
    put.accept("leading zero", replicas("01"));
    put.accept("decimal point only", replicas("1."));
    put.accept("a lone minus", replicas("-"));
    put.accept("two thousand digits", replicas("1".repeat(2_000)));
    put.accept("a long decimal", replicas("1." + "1".repeat(2_000)));
    put.accept("a bare word", replicas("tru"));
    put.accept("single quotes", WORKLOAD.replace("\"w\"", "'w'").formatted("1"));
    put.accept("a comment", replicas("1 /* one */"));
    put.accept("a trailing comma", replicas("1,"));
    put.accept("an unquoted key", replicas("1").replace("\"kind\"", "kind"));
    put.accept("a control character", replicas("1").replace("\"w\"", "\"w\u0001\""));
    put.accept("a bad escape", replicas("1").replace("\"w\"", "\"w\\q\""));
    put.accept("a bad unicode escape", replicas("1").replace("\"w\"", "\"w\\u12G4\""));
    put.accept("cut short", replicas("1").substring(0, 60));
    put.accept("cut inside a string", replicas("1").substring(0, 45));
    put.accept("garbage after", replicas("1") + "xx");
    put.accept("a second document", replicas("1") + "{}");
    put.accept("a missing colon", replicas("1").replace("\"kind\":", "\"kind\" "));
    put.accept("a missing comma", replicas("1").replace(",\"metadata\"", " \"metadata\""));
    put.accept("a closing bracket for a brace", replicas("1]"));
    put.accept(
        "a count over int",
        replicas("1")
            .replace(
                "\"template\"",
                "\"claimTemplates\":[{\"name\":\"c\",\"spec\":{\"requests\":[{\"name\":\"r\","
                    + "\"deviceClassName\":\"gpu\",\"count\":4294967296}]}}],\"template\""));
    put.accept(
        "a grace period over long",
        replicas("1")
            .replace(
                "\"command\":[\"true\"]",
                "\"command\":[\"true\"],\"terminationGracePeriodSeconds\":99999999999999999999"));
    c.put("invalid UTF-8", concat(replicas("1").substring(0, 40), new byte[] {(byte) 0xff}));
    c.put("a truncated UTF-8 sequence", concat("{\"kind\":\"", new byte[] {(byte) 0xe2}));
    return c;
  }

  private static Map<String, String> yamlCorpus() {
    var head = "kind: Workload\nmetadata: {name: w}\nspec:\n  groups:\n  - name: g\n    replicas: ";
    var tail = "\n    template: {command: ['true']}\n";
    var c = new LinkedHashMap<String, String>();
    c.put("NaN", head + ".nan" + tail);
    c.put("infinity", head + ".inf" + tail);
    c.put("over int", head + "99999999999" + tail);
    c.put("forty digits", head + "9".repeat(40) + tail);
    c.put("a fraction", head + "1.5" + tail);
    c.put("a tab for indentation", head + "1\n\ttemplate: {}\n");
    c.put("an unclosed quote", head + "'1" + tail);
    c.put("an unclosed flow list", head + "1\n    template: {command: [true\n");
    c.put("an unclosed flow map", head + "1\n    template: {command: x\n");
    c.put("a value after a value", head + "1: 2: 3" + tail);
    c.put("an undefined alias", head + "*nowhere" + tail);
    c.put("a reserved character", head + "@1" + tail);
    c.put("an unknown tag", head + "!!python/object:os.system 1" + tail);
    c.put("a binary tag", head + "!!binary aGk=" + tail);
    c.put("a bad indentation", "kind: Workload\n  metadata: x\n metadata: y\n");
    c.put("a YAML 2 directive", "%YAML 2.0\n---\nkind: Workload\n");
    c.put("a stray document end", "kind: Workload\n...\nx: [\n");
    c.put("control characters", "kind: Workload\u0007\n");
    return c;
  }

  @Test
  void noJsonErrorNamesTheParsersInternals() {
    var leaks = new ArrayList<String>();
    jsonCorpus()
        .forEach(
            (name, body) -> {
              var e = catchThrowableOfType(ApiException.class, () -> ObjectCodec.fromJson(body));
              check(name, e, leaks);
            });
    assertThat(leaks).as("JSON errors in the parser's words").isEmpty();
  }

  @Test
  void noYamlErrorNamesTheParsersInternals() {
    var leaks = new ArrayList<String>();
    yamlCorpus()
        .forEach(
            (name, text) -> {
              var e = catchThrowableOfType(ApiException.class, () -> ObjectCodec.fromYaml(text));
              check(name, e, leaks);
            });
    assertThat(leaks).as("YAML errors in the parser's words").isEmpty();
  }

  @Test
  void aNumberOutsideItsRangeNamesTheFieldAndTheRange() {
    assertThat(detail(replicas("99999999999")))
        .isEqualTo(
            new Violation(
                "spec.groups[0].replicas",
                "must be an integer between -2147483648 and 2147483647"));
    assertThat(detail(replicas("-" + "9".repeat(40))).rule())
        .isEqualTo("must be an integer between -2147483648 and 2147483647");
  }

  @Test
  void aNumberJsonDoesNotAllowIsNamedAtItsField() {
    assertThat(detail(replicas("NaN")))
        .isEqualTo(new Violation("spec.groups[0].replicas", "NaN is not a number JSON allows"));
    assertThat(detail(replicas("-Infinity")).rule())
        .isEqualTo("-Infinity is not a number JSON allows");
    assertThat(detail(replicas("+1")).rule()).contains("a JSON number has no leading '+'");
    assertThat(detail(replicas("01")).rule()).contains("a JSON number has no leading zero");
  }

  @Test
  void aSyntaxErrorSaysWhereItIs() {
    var comment = detail(replicas("1 /* one */"));
    assertThat(comment.rule()).contains("not valid JSON", "line 1, column", "JSON has no comments");
  }

  private static Violation detail(String body) {
    var e =
        catchThrowableOfType(
            ApiException.class, () -> ObjectCodec.fromJson(body.getBytes(StandardCharsets.UTF_8)));
    assertThat(e).as(body).isNotNull();
    return e.error().details().getFirst();
  }

  private static void check(String name, ApiException e, List<String> leaks) {
    if (e == null) {
      leaks.add(name + ": accepted");
      return;
    }
    assertThat(e.reason()).as(name).isEqualTo(Reason.BadRequest);
    var said = e.getMessage() + " | " + e.error().details();
    if (INTERNALS.matcher(said).find()) {
      leaks.add(name + ": " + said);
    }
  }

  private static byte[] concat(String text, byte[] tail) {
    var head = text.getBytes(StandardCharsets.UTF_8);
    var out = new byte[head.length + tail.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(tail, 0, out, head.length, tail.length);
    return out;
  }
}
