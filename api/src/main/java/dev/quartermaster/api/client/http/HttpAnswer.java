package dev.quartermaster.api.client.http;

import java.util.Map;
import java.util.Optional;

/**
 * One whole HTTP answer.
 *
 * @param headers the first value of each header, by its name in lower case
 */
public record HttpAnswer(int status, Map<String, String> headers, byte[] body) {
  public HttpAnswer {
    headers = Map.copyOf(headers);
  }

  Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT)));
  }
}
