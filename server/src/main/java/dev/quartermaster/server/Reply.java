package dev.quartermaster.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ApiObject;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** A complete (non-streaming) response: status, extra headers, content type and body. */
record Reply(int status, Map<String, String> headers, String contentType, byte[] body) {

  Reply {
    headers = Map.copyOf(headers);
  }

  static Reply object(int status, ApiObject object) {
    return new Reply(status, Map.of(), HttpWire.JSON, ObjectCodec.toJson(object));
  }

  /** Any wire record (errors, lists) written by the API's JSON mapper, so the format is one. */
  static Reply json(int status, Object value) {
    try {
      return new Reply(
          status, Map.of(), HttpWire.JSON, ObjectCodec.json().writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Reply text(int status, String contentType, String text) {
    return new Reply(status, Map.of(), contentType, text.getBytes(StandardCharsets.UTF_8));
  }

  Reply withHeader(String name, String value) {
    var next = new HashMap<>(headers);
    next.put(name, value);
    return new Reply(status, next, contentType, body);
  }
}
