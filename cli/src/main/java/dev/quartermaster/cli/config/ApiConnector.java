package dev.quartermaster.cli.config;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.TrustedCa;
import dev.quartermaster.cli.CliException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Opens an {@link ApiClient} to a server; tests substitute one that needs no network. */
@FunctionalInterface
public interface ApiConnector {

  ApiClient connect(URI server, String token);

  /** As {@link #connect(URI, String)}, trusting the CA in {@code caFile} for an https server. */
  default ApiClient connect(URI server, String token, Optional<Path> caFile) {
    return connect(server, token);
  }

  /**
   * As above, for servers of one cluster: the client moves to the next when one cannot be reached.
   */
  default ApiClient connect(List<URI> servers, String token, Optional<Path> caFile) {
    return connect(servers.getFirst(), token, caFile);
  }

  static ApiConnector http() {
    return new ApiConnector() {
      @Override
      public ApiClient connect(URI server, String token) {
        return new HttpApiClient(server, token);
      }

      @Override
      public ApiClient connect(URI server, String token, Optional<Path> caFile) {
        return connect(List.of(server), token, caFile);
      }

      @Override
      public ApiClient connect(List<URI> servers, String token, Optional<Path> caFile) {
        try {
          return HttpApiClient.of(
              servers,
              token,
              caFile.isEmpty()
                  ? Optional.empty()
                  : Optional.of(TrustedCa.sslContext(caFile.get())));
        } catch (IllegalArgumentException e) {
          throw new CliException(e.getMessage());
        }
      }
    };
  }
}
