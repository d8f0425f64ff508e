package dev.quartermaster.server.auth;

import java.util.Optional;

/**
 * Decides whether an authenticated principal may make a request; the server answers 403 with the
 * returned reason. It runs after the body is decoded and validated and before the store is touched,
 * so a denied write changes nothing.
 */
@FunctionalInterface
public interface AccessRule {

  /** Why {@code who} may not do {@code access}; empty to allow it. */
  Optional<String> deny(Principal who, Access access);

  /** Allows every authenticated principal everything. */
  AccessRule ALLOW_ALL = (who, access) -> Optional.empty();
}
