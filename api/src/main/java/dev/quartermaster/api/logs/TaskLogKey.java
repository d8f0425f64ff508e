package dev.quartermaster.api.logs;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key an API server presents to an agent's log endpoint: an HMAC of a fixed label under the
 * SHA-256 of the agent's token. The agent computes it from its token; a server from the token's
 * digest as the store keeps it (node tokens) or from the admin token it holds. Neither token
 * crosses the wire, and the key opens task output only: it is not a credential of the API.
 */
public final class TaskLogKey {
  private static final byte[] LABEL =
      "quartermaster task logs v1".getBytes(StandardCharsets.US_ASCII);

  private TaskLogKey() {}

  /** The key of {@code token}. */
  public static String ofToken(String token) {
    return ofTokenSha256(sha256(token));
  }

  /** The key of the token whose SHA-256 is {@code digest}. */
  public static String ofTokenSha256(byte[] digest) {
    try {
      var mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(digest, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(LABEL));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  /** Whether {@code presented} is {@code key}, compared in constant time. */
  public static boolean matches(String key, String presented) {
    return MessageDigest.isEqual(
        key.getBytes(StandardCharsets.US_ASCII), presented.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
