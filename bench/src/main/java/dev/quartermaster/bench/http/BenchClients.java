package dev.quartermaster.bench.http;

import dev.quartermaster.api.client.http.HttpApiClient;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * An {@link HttpApiClient} whose calls go over the client's own connections or over Apache
 * HttpClient 5 ({@link PooledConnections}), for {@code ./qm bench api} to run the same calls
 * through each.
 */
public final class BenchClients {
  private BenchClients() {}

  public static HttpApiClient kept(URI base, String token) {
    return HttpApiClient.of(List.of(base), token, Optional.empty());
  }

  public static HttpApiClient pooled(URI base, String token) {
    return HttpApiClient.over(List.of(base), token, Optional.empty(), PooledConnections::new);
  }
}
