package dev.quartermaster.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * A fixed table of tokens. Tokens are kept only as SHA-256 digests and looked up by digest, so the
 * time a lookup takes says nothing about how close a guess was, and a heap dump shows no token.
 */
public final class TokenAuthenticator implements Authenticator {
  private final Map<String, Principal> byDigest;

  private TokenAuthenticator(Map<String, Principal> byDigest) {
    this.byDigest = Map.copyOf(byDigest);
  }

  /** Accepts only the admin token. */
  public static TokenAuthenticator admin(String adminToken) {
    return new TokenAuthenticator(Map.of()).with(adminToken, Principal.admin());
  }

  /** This table plus {@code token} standing for {@code principal} (e.g. a node's own token). */
  public TokenAuthenticator with(String token, Principal principal) {
    if (token.isBlank()) {
      throw new IllegalArgumentException("a token must not be blank");
    }
    var next = new HashMap<>(byDigest);
    next.put(digest(token), principal);
    return new TokenAuthenticator(next);
  }

  @Override
  public Optional<Principal> authenticate(String bearerToken) {
    return Optional.ofNullable(byDigest.get(digest(bearerToken)));
  }

  private static String digest(String token) {
    try {
      var sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
