package dev.quartermaster.cli.fast;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.meta.Kind;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * {@code get KIND [NAME] -o json} without the object model: the server's JSON of the object, or of
 * the list's items in the order it keeps them (by name, the order {@code get} sorts in for every
 * kind but events), re-indented by the streaming generator with the pretty printer {@code get}'s
 * tree path uses, so that both print the same bytes ({@code FastGetAgreementTest}).
 */
final class JsonListing {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonListing() {}

  static void print(
      HttpApiClient http,
      Kind<?> kind,
      Optional<String> name,
      LabelSelector selector,
      PrintWriter out) {
    var path =
        name.map(n -> kind.plural() + "/" + HttpWire.encodeSegment(n))
            .orElseGet(
                () ->
                    kind.plural()
                        + (selector.isEmpty()
                            ? ""
                            : "?"
                                + HttpWire.PARAM_LABEL_SELECTOR
                                + "="
                                + HttpWire.encodeQueryValue(selector.toString())));
    var body = http.exchange("GET", path, Optional.empty());
    var text = new StringWriter();
    try (var in = FACTORY.createParser(body);
        var json = FACTORY.createGenerator(text)) {
      json.setPrettyPrinter(new DefaultPrettyPrinter());
      if (in.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the server's answer is not a JSON object");
      }
      if (name.isPresent()) {
        json.copyCurrentStructure(in);
      } else {
        json.writeStartObject();
        json.writeStringField("kind", "List");
        json.writeFieldName("items");
        boolean copied = false;
        while (in.nextToken() == JsonToken.FIELD_NAME) {
          var field = in.currentName();
          in.nextToken();
          if (field.equals("items")) {
            json.copyCurrentStructure(in);
            copied = true;
          } else {
            in.skipChildren();
          }
        }
        if (!copied) {
          json.writeStartArray();
          json.writeEndArray();
        }
        json.writeEndObject();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the server's JSON: " + e.getMessage(), e);
    }
    out.print(text + "\n");
    out.flush();
  }
}
