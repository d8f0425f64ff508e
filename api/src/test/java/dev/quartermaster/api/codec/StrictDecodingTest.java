package dev.quartermaster.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.workload.Workload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Input that used to be silently accepted or mangled is refused by name (issue 10, item 5). */
class StrictDecodingTest {
  private static ApiException json(String text) {
    var thrown =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ApiException.class, () -> ObjectCodec.fromJson(text.getBytes(StandardCharsets.UTF_8)));
    assertThat(thrown).as("decoding %s", text).isNotNull();
    assertThat(thrown.reason()).isEqualTo(Reason.BadRequest);
    return thrown;
  }

  private static ApiException yaml(String text) {
    var thrown =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ApiException.class, () -> ObjectCodec.fromYaml(text));
    assertThat(thrown).as("decoding %s", text).isNotNull();
    assertThat(thrown.reason()).isEqualTo(Reason.BadRequest);
    return thrown;
  }

  @Test
  void tooDeepANestingIsRefusedWithoutNamingJava() {
    // (JSON's typed decoding refuses a wrong type at the first bracket, before any depth is
    // reached.)
    var e = yaml("a: " + "[".repeat(2_000));
    assertThat(e.getMessage())
        .contains("nesting depth")
        .doesNotContain("StreamReadConstraints", "`");
  }

  @Test
  void aDuplicateJsonKeyIsRefusedNamingTheKey() {
    var e = json("{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}");
    assertThat(e.error().details())
        .containsExactly(
            new Violation("metadata.name", "duplicate key 'name'; give each key once"));
  }

  @Test
  void aDuplicateYamlKeyIsRefusedNamingTheKey() {
    var e =
        yaml(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - name: head
            replicas: 1
            replicas: 2
            template: {command: [x]}
        """);
    assertThat(e.getMessage()).contains("document 1").contains("duplicate key 'replicas'");
    assertThat(e.error().details().getFirst().field()).endsWith("replicas");
  }

  @Test
  void aFloatIsNotTruncatedToAnInteger() {
    var e =
        yaml(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - {name: head, replicas: 1.7, template: {command: [x]}}
        """);
    assertThat(e.error().details())
        .containsExactly(new Violation("spec.groups[0].replicas", "must be an integer"));
  }

  @Test
  void aNumberOrBooleanIsNotTurnedIntoAString() {
    var number =
        yaml(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - {name: head, replicas: 1, template: {command: [x], env: {PORT: 8080}}}
        """);
    assertThat(number.error().details())
        .containsExactly(new Violation("spec.groups[0].template.env.PORT", "must be a string"));
    var bool = json("{\"kind\":\"Node\",\"metadata\":{\"name\":true}}");
    assertThat(bool.error().details())
        .containsExactly(new Violation("metadata.name", "must be a string"));
    var quoted =
        ObjectCodec.fromYaml(
            """
        kind: Workload
        metadata: {name: train}
        spec:
          groups:
          - {name: head, replicas: 1, template: {command: [x], env: {PORT: "8080"}}}
        """);
    assertThat(((Workload) quoted.getFirst()).spec().groups().getFirst().template().env())
        .containsEntry("PORT", "8080");
    // What the writer prints reads back: a string that looks like a number is quoted.
    assertThat(ObjectCodec.toYaml(quoted.getFirst())).contains("\"8080\"");
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(quoted.getFirst()))).isEqualTo(quoted);
  }

  /** YAML 1.2: only true/false are booleans; 'no' is the text the user wrote, not "false". */
  @Test
  void yamlOneOneBooleanWordsStayTheTextWritten() {
    var objects = ObjectCodec.fromYaml("kind: Node\nmetadata: {name: no, labels: {on: off}}\n");
    assertThat(objects.getFirst().metadata().name()).isEqualTo("no");
    assertThat(objects.getFirst().metadata().labels()).containsEntry("on", "off");
    // It survives a round trip: the writer quotes what would read back as something else.
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(objects.getFirst())))
        .containsExactlyElementsOf(objects);
  }

  /** Where a boolean is expected, a YAML 1.1 word is refused rather than guessed. */
  @Test
  void yamlOneOneBooleanWordsAreNotBooleans() {
    var e = yaml("kind: Node\nmetadata: {name: a}\nspec: {unschedulable: yes}\n");
    assertThat(e.error().details())
        .containsExactly(new Violation("spec.unschedulable", "must be true or false"));
  }

  @Test
  void aNullOrEmptyBodySaysWhatWasExpected() {
    for (var body : new String[] {"null", "", "  \n"}) {
      var e = json(body);
      assertThat(e.getMessage()).startsWith("expected an object with kind, metadata, spec");
    }
  }

  @Test
  void messagesNeverNameJavaTypes() {
    for (var body :
        new String[] {
          "[]",
          "42",
          "\"x\"",
          "{\"kind\":\"Node\",\"metadata\":[]}",
          "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"labels\":[1]}}"
        }) {
      var e = json(body);
      assertThat(e.getMessage())
          .as(body)
          .doesNotContain("ApiObject", "ObjectMeta", "java.", "a Map", "a List");
    }
    assertThat(json("[]").getMessage()).contains("an object with kind, metadata, spec");
  }
}
