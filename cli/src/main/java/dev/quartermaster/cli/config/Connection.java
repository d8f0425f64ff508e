package dev.quartermaster.cli.config;

import dev.quartermaster.api.client.ApiClient;

/** An open client for one command; closing releases its connections if the client holds any. */
public record Connection(ApiClient api) implements AutoCloseable {

  public static Connection open(ClientConfig config, ApiConnector connector) {
    return new Connection(connector.connect(config.servers(), config.readToken(), config.caFile()));
  }

  @Override
  public void close() {
    if (api instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // The command's work is done; failing to release a connection must not turn success into an
        // error.
      }
    }
  }
}
