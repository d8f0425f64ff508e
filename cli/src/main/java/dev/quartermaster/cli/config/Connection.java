package dev.quartermaster.cli.config;

import dev.quartermaster.api.client.ApiClient;

/** An open client for one command; closing releases its connections if the client holds any. */
public record Connection(ApiClient api) implements AutoCloseable {
  /**
   * Which token this thread's command presented, so that a 401 can name the file it came from (a
   * command runs on one thread; {@link dev.quartermaster.cli.ErrorReporter} reads it there).
   */
  private static final ThreadLocal<ClientConfig> PRESENTED = new ThreadLocal<>();

  public static Connection open(ClientConfig config, ApiConnector connector) {
    PRESENTED.set(config);
    return new Connection(connector.connect(config.servers(), config.readToken(), config.caFile()));
  }

  /** Where the token this thread's last connection presented came from, if it opened one. */
  public static java.util.Optional<String> presentedToken() {
    return java.util.Optional.ofNullable(PRESENTED.get())
        .map(c -> "the token presented is from " + c.tokenFile() + " (" + c.tokenSource() + ")");
  }

  /**
   * For a server that cannot be reached and that the config file chose: how to see the clusters and
   * forget a stopped one (a stopped cluster otherwise stays current).
   */
  public static java.util.Optional<String> unreachableHint() {
    return java.util.Optional.ofNullable(PRESENTED.get())
        .filter(ClientConfig::serverFromConfigFile)
        .map(
            c ->
                "the server is "
                    + c.serverSource()
                    + ": qm config list shows the clusters qm knows, qm config use NAME picks"
                    + " another, qm config delete NAME forgets a stopped one");
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
