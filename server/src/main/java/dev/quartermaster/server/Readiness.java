package dev.quartermaster.server;

import java.util.Objects;

/**
 * What {@code /readyz} answers: whether this server does all its work now (its controllers, where
 * it runs them, can write), and a line for people saying so or saying what stops it. Unlike {@code
 * /healthz}, which only says the process answers, this is false while the process serves the API
 * but its controllers cannot act.
 */
public record Readiness(boolean ready, String message) {
  /** A server without controllers: serving is all it does. */
  public static final Readiness SERVING = new Readiness(true, "serving the API");

  public Readiness {
    Objects.requireNonNull(message, "message");
  }
}
