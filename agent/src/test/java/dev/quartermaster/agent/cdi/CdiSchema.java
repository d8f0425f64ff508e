package dev.quartermaster.agent.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Validates a CDI spec against the CDI project's JSON schema (test resources, spec 1.1.0), plus the
 * rules the schema does not state but runtimes enforce: the kind and name alphabets, and {@code
 * cdiVersion} at least what the fields need.
 */
final class CdiSchema {
  private static final JsonSchema SCHEMA = load();
  private static final Pattern KIND =
      Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]/[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

  private CdiSchema() {}

  private static JsonSchema load() {
    try {
      var uri = CdiSchema.class.getResource("/cdi-schema/schema.json").toURI().toString();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7)
          .getSchema(SchemaLocation.of(uri));
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every problem with {@code spec}; empty when it is valid. */
  static List<String> problems(JsonNode spec) {
    var out = new java.util.ArrayList<String>();
    SCHEMA.validate(spec).forEach(m -> out.add("schema: " + m.getMessage()));
    var kind = spec.path("kind").asText();
    if (!KIND.matcher(kind).matches()) {
      out.add("kind '" + kind + "' is not <vendor>/<class>");
    }
    boolean needs050 = false;
    for (var device : spec.path("devices")) {
      var name = device.path("name").asText();
      if (!NAME.matcher(name).matches()) {
        out.add("device name '" + name + "' is not alphanumeric at both ends");
      }
      needs050 |= !name.isEmpty() && Character.isDigit(name.charAt(0));
      for (var node : device.path("containerEdits").path("deviceNodes")) {
        needs050 |= node.has("hostPath");
      }
    }
    var version = spec.path("cdiVersion").asText();
    if (needs050 && !version.equals("0.5.0")) {
      out.add(
          "cdiVersion " + version + ": hostPath or a digit-first name needs 0.5.0 (and no more)");
    }
    if (!needs050 && !version.equals("0.3.0")) {
      out.add("cdiVersion " + version + " is above the minimum 0.3.0");
    }
    return out;
  }
}
