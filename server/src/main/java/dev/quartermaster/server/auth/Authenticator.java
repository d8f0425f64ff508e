package dev.quartermaster.server.auth;

import java.util.Optional;

/** Turns a bearer token into the principal it stands for; empty when the token is not known. */
@FunctionalInterface
public interface Authenticator {
  Optional<Principal> authenticate(String bearerToken);
}
