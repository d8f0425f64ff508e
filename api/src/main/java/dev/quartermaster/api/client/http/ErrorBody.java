package dev.quartermaster.api.client.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonToken;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.Violation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Optional;

/**
 * An error answer's body read with the streaming parser alone: a failed command decodes one, and
 * starting Jackson's object mapper for it cost a command a sixth of a second. Unknown fields are
 * skipped; a body that is not an {@link ApiError} is empty.
 */
final class ErrorBody {
  private static final JsonFactory FACTORY = new JsonFactory();

  private ErrorBody() {}

  static Optional<ApiError> read(byte[] body) {
    try (var json = FACTORY.createParser(body)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      int code = -1;
      Optional<ApiError.Reason> reason = Optional.empty();
      String message = "";
      var details = new ArrayList<Violation>();
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        var field = json.currentName();
        var value = json.nextToken();
        switch (field) {
          case "code" -> code = value == JsonToken.VALUE_NUMBER_INT ? json.getIntValue() : -1;
          case "reason" -> reason = reasonOf(json.getValueAsString());
          case "message" -> message = json.getValueAsString("");
          case "details" -> {
            if (value != JsonToken.START_ARRAY) {
              return Optional.empty();
            }
            while (json.nextToken() == JsonToken.START_OBJECT) {
              String name = "";
              String rule = "";
              while (json.nextToken() == JsonToken.FIELD_NAME) {
                var key = json.currentName();
                json.nextToken();
                switch (key) {
                  case "field" -> name = json.getValueAsString("");
                  case "rule" -> rule = json.getValueAsString("");
                  default -> json.skipChildren();
                }
              }
              details.add(new Violation(name, rule));
            }
          }
          default -> json.skipChildren();
        }
      }
      return code < 0 || reason.isEmpty()
          ? Optional.empty()
          : Optional.of(new ApiError(code, reason.get(), message, details));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Optional<ApiError.Reason> reasonOf(String name) {
    for (var r : ApiError.Reason.values()) {
      if (r.name().equals(name)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
