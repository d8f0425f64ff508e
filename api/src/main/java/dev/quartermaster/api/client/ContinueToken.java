package dev.quartermaster.api.client;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where a paged list left off: the revision its pages are read at and the last name it gave. On the
 * wire an opaque string ({@code continue}), as Kubernetes' continue token is.
 */
public record ContinueToken(long revision, String after) {
  private static final String VERSION = "1";

  public ContinueToken {
    if (revision < 1 || after.isEmpty()) {
      throw new IllegalArgumentException("a continue token has a revision and a name");
    }
  }

  public String encode() {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((VERSION + ":" + revision + ":" + after).getBytes(StandardCharsets.UTF_8));
  }

  /** The token {@code text} encodes; anything else is an {@link IllegalArgumentException}. */
  public static ContinueToken decode(String text) {
    try {
      var plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
      var parts = plain.split(":", 3);
      if (parts.length == 3 && parts[0].equals(VERSION)) {
        return new ContinueToken(Long.parseLong(parts[1]), parts[2]);
      }
    } catch (IllegalArgumentException e) {
      // said below, with the rule
    }
    throw new IllegalArgumentException(
        "not a continue token: pass the continue value of the previous page as it was given");
  }
}
