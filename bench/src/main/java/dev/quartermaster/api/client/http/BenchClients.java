package dev.quartermaster.api.client.http;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The bench's door into the client's package: an {@link HttpApiClient} whose calls go over the
 * hand-written {@link KeptConnections} or over Apache HttpClient 5 ({@link PooledConnections}), for
 * {@code ./qm bench api} to run the same calls through each. Lives in the bench so that the
 * client's public API offers no transport switch.
 */
public final class BenchClients {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private BenchClients() {}

  public static HttpApiClient kept(URI base, String token) {
    return new HttpApiClient(
        List.of(base), token, REQUEST_TIMEOUT, Optional.empty(), KeptConnections::new);
  }

  public static HttpApiClient pooled(URI base, String token) {
    return new HttpApiClient(
        List.of(base), token, REQUEST_TIMEOUT, Optional.empty(), PooledConnections::new);
  }
}
