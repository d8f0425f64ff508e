package dev.quartermaster.api.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.validation.ObjectValidator;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The codec's promise for any bytes at all: an object, or a 400 {@link ApiException} with a message
 * and the violated rule. Never a NullPointerException, ClassCastException, StackOverflowError or
 * any other throwable. What decodes, encodes and decodes back to an equal object, in JSON and YAML,
 * and the validators only ever return violations.
 *
 * <p>Without {@code JAZZER_FUZZ} these run the inputs under {@code ObjectCodecFuzzTestInputs/} as
 * regression tests; {@code bench/fuzz.sh} fuzzes them.
 */
class ObjectCodecFuzzTest {

  @FuzzTest
  void json(byte[] bytes) {
    ApiObject object;
    try {
      object = ObjectCodec.fromJson(bytes);
    } catch (ApiException e) {
      assertIsDecodeError(e);
      return;
    }
    // One format only: an object, not Jackson's ["Kind", {...}] wrapper array.
    assertThat(new String(bytes, StandardCharsets.UTF_8).replace("\uFEFF", "").strip())
        .startsWith("{");
    assertRoundTrips(object);
    assertValidatorsOnlyReport(object);
  }

  @FuzzTest
  void yaml(byte[] bytes) {
    List<ApiObject> objects;
    try {
      objects = ObjectCodec.fromYaml(new String(bytes, StandardCharsets.UTF_8));
    } catch (ApiException e) {
      assertIsDecodeError(e);
      assertThat(e.getMessage()).startsWith("document ");
      return;
    }
    assertThat(objects).doesNotContainNull();
    for (var object : objects) {
      assertRoundTrips(object);
      assertValidatorsOnlyReport(object);
    }
  }

  static void assertIsDecodeError(ApiException e) {
    assertThat(e.reason()).isEqualTo(ApiError.Reason.BadRequest);
    assertThat(e.error().code()).isEqualTo(400);
    assertThat(e.getMessage()).isNotBlank();
    assertThat(e.error().details()).isNotEmpty();
    assertThat(e.error().details())
        .allSatisfy(
            v -> {
              assertThat(v.field()).isNotNull();
              assertThat(v.rule()).isNotBlank();
              // The user learns the field and the rule, never a Java class name.
              assertThat(v.rule())
                  .doesNotContain("dev.quartermaster", "java.lang", "com.fasterxml");
            });
  }

  static void assertRoundTrips(ApiObject object) {
    assertThat(object.kind()).isNotNull();
    assertThat(object.metadata()).isNotNull();
    assertThat(ObjectCodec.fromJson(ObjectCodec.toJson(object))).isEqualTo(object);
    assertThat(ObjectCodec.fromYaml(ObjectCodec.toYaml(object))).containsExactly(object);
  }

  static void assertValidatorsOnlyReport(ApiObject object) {
    assertThat(ObjectValidator.validate(object)).doesNotContainNull();
    assertThat(ObjectValidator.validateCreate(object)).doesNotContainNull();
    assertThat(ObjectValidator.validateStatus(object)).doesNotContainNull();
    for (var check :
        List.<Runnable>of(
            () -> ObjectValidator.require(object),
            () -> ObjectValidator.requireCreate(object),
            () -> ObjectValidator.requireStatus(object))) {
      try {
        check.run();
      } catch (ApiException e) {
        assertThat(e.reason()).isEqualTo(ApiError.Reason.Invalid);
        assertThat(e.error().details()).isNotEmpty();
      }
    }
  }
}
