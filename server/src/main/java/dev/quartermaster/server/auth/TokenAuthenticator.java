package dev.quartermaster.server.auth;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A fixed table of tokens, and the node tokens in the store if given. Tokens are kept only as
 * SHA-256 digests and looked up by digest, so the time a lookup takes says nothing about how close
 * a guess was, and a heap dump shows no token.
 */
public final class TokenAuthenticator implements Authenticator {
  private final Map<String, Principal> byDigest;
  private final Optional<NodeTokens> nodeTokens;

  private TokenAuthenticator(Map<String, Principal> byDigest, Optional<NodeTokens> nodeTokens) {
    this.byDigest = Map.copyOf(byDigest);
    this.nodeTokens = nodeTokens;
  }

  /** Accepts only the admin token. */
  public static TokenAuthenticator admin(String adminToken) {
    return new TokenAuthenticator(Map.of(), Optional.empty()).with(adminToken, Principal.admin());
  }

  /** This table, and the live node tokens of {@code tokens} besides. */
  public TokenAuthenticator withNodeTokens(NodeTokens tokens) {
    return new TokenAuthenticator(byDigest, Optional.of(tokens));
  }

  /** This table plus {@code token} standing for {@code principal} (e.g. a node's own token). */
  public TokenAuthenticator with(String token, Principal principal) {
    if (token.isBlank()) {
      throw new IllegalArgumentException("a token must not be blank");
    }
    var next = new HashMap<>(byDigest);
    next.put(NodeTokens.digest(token), principal);
    return new TokenAuthenticator(next, nodeTokens);
  }

  @Override
  public Optional<Principal> authenticate(String bearerToken) {
    return Optional.ofNullable(byDigest.get(NodeTokens.digest(bearerToken)))
        .or(() -> nodeTokens.flatMap(t -> t.authenticate(bearerToken)));
  }
}
