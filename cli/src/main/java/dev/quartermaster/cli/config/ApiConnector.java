package dev.quartermaster.cli.config;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.http.HttpApiClient;
import java.net.URI;

/** Opens an {@link ApiClient} to a server; tests substitute one that needs no network. */
@FunctionalInterface
public interface ApiConnector {

  ApiClient connect(URI server, String token);

  static ApiConnector http() {
    return HttpApiClient::new;
  }
}
