package dev.quartermaster.server.http;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Where each request's handler runs: on {@code requests} (a virtual thread each), except the health
 * check ({@code GET} or {@code HEAD} of one of {@code healthPaths}), which runs on {@code health},
 * platform threads of its own. Virtual threads share a few carrier threads with all the other
 * requests, and a store call pins its carrier while SQLite works: under load (10,000 queue writes)
 * a health check queued behind them took 8 s to answer, just when whoever watches the server needs
 * it. Health touches no lock or thread that requests, controllers or the store's writes hold.
 */
public record RequestThreads(Executor requests, Executor health, Set<String> healthPaths)
    implements Executor {
  public RequestThreads {
    Objects.requireNonNull(requests, "requests");
    Objects.requireNonNull(health, "health");
    healthPaths = Set.copyOf(healthPaths);
  }

  /** Every request on {@code executor}, health checks too. */
  public static RequestThreads all(Executor executor) {
    return new RequestThreads(executor, executor, Set.of());
  }

  /** Runs a request whose target is not known: on {@code requests}. */
  @Override
  public void execute(Runnable request) {
    requests.execute(request);
  }

  /** The threads for a request of {@code method} to {@code rawPath}. */
  Executor of(String method, String rawPath) {
    return (method.equals("GET") || method.equals("HEAD")) && healthPaths.contains(rawPath)
        ? health
        : requests;
  }
}
