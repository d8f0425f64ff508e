package dev.quartermaster.api.codec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.MapperBuilder;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes API objects as JSON and (multi-document) YAML.
 *
 * <p>Unknown fields are rejected, a missing or unknown {@code kind} is an error, and every decode
 * error names the field path ({@code spec.groups[0].replicas}) and the rule. Output is stable:
 * properties and map entries are sorted, empty values are left out.
 */
public final class ObjectCodec {
  private static final ObjectMapper JSON =
      configure(JsonMapper.builder(PooledJson.factory())).build();
  private static final ObjectMapper YAML =
      configure(
              YAMLMapper.builder(
                  YAMLFactory.builder()
                      .recyclerPool(PooledJson.pool())
                      .disable(
                          YAMLGenerator.Feature.WRITE_DOC_START_MARKER,
                          YAMLGenerator.Feature.USE_NATIVE_TYPE_ID)
                      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                      // "80" must be written "80", not 80: a number is never read back as a string.
                      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                      .build()))
          // YAML 1.2 booleans: only true/false are booleans. yes/no/on/off/y/n stay the text the
          // user wrote
          // (a node named 'no' is 'no', not 'false'); where a boolean is expected they are refused.
          .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
          .build();
  private static final String EXPECTED_OBJECT = "expected an object with kind, metadata, spec";

  /** What a manifest may say as its {@code apiVersion} (kubectl's habit): ours, or nothing. */
  public static final String API_VERSION = "quartermaster.dev/v1";

  private static final String API_VERSION_FIELD = "apiVersion";

  private ObjectCodec() {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "kind")
  private interface KindProperty {}

  private static <M extends ObjectMapper, B extends MapperBuilder<M, B>> B configure(B builder) {
    builder
        .addModule(new Jdk8Module())
        .addModule(new JavaTimeModule())
        .addModule(InstantJson.module())
        .addMixIn(ApiObject.class, KindProperty.class)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        // Strict: a key given twice is an error (not "last wins"), 1.7 is not an integer, and a
        // number
        // or boolean is not a string (an env value 8080 must be written "8080").
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .withCoercionConfig(
            LogicalType.Textual,
            c ->
                c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
        // Empty fields are left out, but never an entry of a map: a label or env value "" is what
        // the
        // user wrote, and leaving it out would drop the key (found by ObjectCodecFuzzTest).
        .defaultPropertyInclusion(
            JsonInclude.Value.construct(
                JsonInclude.Include.NON_EMPTY, JsonInclude.Include.NON_NULL));
    for (var kind : Kinds.ALL) {
      builder.registerSubtypes(new NamedType(kind.type(), kind.name()));
    }
    return builder;
  }

  /** The JSON mapper, for other wire types (errors, events); configured like the object codec. */
  public static ObjectMapper json() {
    return JSON;
  }

  public static byte[] toJson(ApiObject object) {
    try {
      return JSON.writeValueAsBytes(object);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String toYaml(ApiObject object) {
    try {
      return YAML.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Decodes one object of any kind. */
  public static ApiObject fromJson(byte[] bytes) {
    // An empty body or a JSON null decodes to no object at all: refuse it here, with what was
    // expected,
    // rather than let a null travel on to the validator.
    // Looked at in place: every stored object read passes here, and a String of the body is a copy.
    char first = bytes == null ? ' ' : firstNonBlank(bytes);
    if (first == ' ') {
      throw notAnObject("empty body");
    }
    // Jackson would read an array as [kind, object] (its wrapper-array form for typed values): only
    // an object is an object.
    if (first != '{') {
      throw notAnObject(
          switch (first) {
            case '[' -> "got an array";
            case '"' -> "got a string";
            case 'n' -> "got null";
            case 't', 'f' -> "got a boolean";
            default ->
                first == '-' || Character.isDigit(first)
                    ? "got a number"
                    : "got something that is not JSON";
          });
    }
    try {
      var object = JSON.readValue(bytes, ApiObject.class);
      if (object == null) {
        throw notAnObject("got null");
      }
      return object;
    } catch (IOException e) {
      throw DecodeErrors.toApiException(e, "");
    }
  }

  /**
   * The first byte that is not JSON whitespace, after a UTF-8 byte order mark (which Jackson
   * accepts); ' ' if none.
   */
  private static char firstNonBlank(byte[] bytes) {
    boolean bom =
        bytes.length >= 3
            && bytes[0] == (byte) 0xEF
            && bytes[1] == (byte) 0xBB
            && bytes[2] == (byte) 0xBF;
    for (int i = bom ? 3 : 0; i < bytes.length; i++) {
      var b = bytes[i];
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return (char) (b & 0xff);
      }
    }
    return ' ';
  }

  private static ApiException notAnObject(String got) {
    return ApiException.badRequest(
        EXPECTED_OBJECT + "; " + got,
        List.of(new dev.quartermaster.api.error.Violation("", EXPECTED_OBJECT)));
  }

  /**
   * Decodes a request body that is not an API object (a node token's request) with the same strict
   * rules and the same errors as an object: a 400 naming the field and the rule, never a Java type.
   */
  public static <T> T fromJsonBody(byte[] bytes, Class<T> type) {
    char first = bytes == null ? ' ' : firstNonBlank(bytes);
    if (first != '{') {
      throw ApiException.badRequest(
          "expected a JSON object" + (first == ' ' ? "; empty body" : ""),
          List.of(new dev.quartermaster.api.error.Violation("", "expected a JSON object")));
    }
    try {
      return JSON.readValue(bytes, type);
    } catch (IOException e) {
      throw DecodeErrors.toApiException(e, "");
    }
  }

  /**
   * An object of {@code kind} with every field at its default: its status is the kind's empty
   * status, what a create without one stores.
   */
  public static <T extends ApiObject> T blank(Kind<T> kind) {
    return fromJson(
        ("{\"kind\":\"" + kind.name() + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8),
        kind);
  }

  /** Decodes one object that must be of {@code kind}. */
  public static <T extends ApiObject> T fromJson(byte[] bytes, Kind<T> kind) {
    return requireKind(fromJson(bytes), kind);
  }

  /** Decodes every document of a YAML (or JSON) stream; empty documents are skipped. */
  public static List<ApiObject> fromYaml(String text) {
    var out = new ArrayList<ApiObject>();
    int document = 0;
    // Documents are read as trees first: that is how an empty document ("---" twice) can be told
    // apart from an object, and a broken document does not hide which number it was.
    try (var trees = YAML.readerFor(JsonNode.class).<JsonNode>readValues(text)) {
      while (trees.hasNextValue()) {
        document++;
        var tree = trees.nextValue();
        if (tree == null
            || tree.isNull()
            || tree.isMissingNode()
            || (tree.isTextual() && tree.asText().isBlank())) {
          continue;
        }
        if (!tree.isObject()) {
          // A list would be read as a type id and its object ("- Node"), or as nothing at all.
          throw ApiException.badRequest(
              "document " + document + ": " + EXPECTED_OBJECT,
              List.of(new dev.quartermaster.api.error.Violation("", EXPECTED_OBJECT)));
        }
        var version = tree.get(API_VERSION_FIELD);
        if (version != null) {
          // kubectl users write it in every manifest: ours is taken and dropped, any other named.
          if (!version.isTextual() || !API_VERSION.equals(version.asText())) {
            throw ApiException.badRequest(
                "document " + document + ": apiVersion: must be " + API_VERSION + " (or left out)",
                List.of(
                    new dev.quartermaster.api.error.Violation(
                        API_VERSION_FIELD, "must be " + API_VERSION + " (or left out)")));
          }
          ((com.fasterxml.jackson.databind.node.ObjectNode) tree).remove(API_VERSION_FIELD);
        }
        try {
          out.add(YAML.treeToValue(tree, ApiObject.class));
        } catch (IOException | IllegalArgumentException e) {
          throw DecodeErrors.toApiException(
              e.getCause() instanceof IOException io ? io : e, "document " + document + ": ");
        }
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof ApiException api) {
        throw api;
      }
      throw DecodeErrors.toApiException(e, "document " + Math.max(1, document) + ": ");
    }
    return List.copyOf(out);
  }

  public static <T extends ApiObject> T requireKind(ApiObject object, Kind<T> kind) {
    if (!kind.type().isInstance(object)) {
      throw ApiException.badRequest(
          "kind: must be " + kind.name() + ", got " + object.kind().name(),
          List.of(new dev.quartermaster.api.error.Violation("kind", "must be " + kind.name())));
    }
    return kind.cast(object);
  }
}
