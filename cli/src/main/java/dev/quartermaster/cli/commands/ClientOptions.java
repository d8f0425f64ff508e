package dev.quartermaster.cli.commands;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.config.ClientConfig;
import dev.quartermaster.cli.config.Connection;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The options every client command shares: which server, and which token to present. */
public final class ClientOptions {
  @Option(
      names = "--server",
      paramLabel = "URL",
      description =
          "API server URL (else $QM_SERVER, else the config file, else "
              + ClientConfig.DEFAULT_SERVER
              + ")")
  private String server;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "file holding the bearer token (else $QM_TOKEN_FILE, else the config file, else "
              + ClientConfig.DEFAULT_TOKEN_FILE
              + ")")
  private String tokenFile;

  @Option(
      names = "--ca-file",
      paramLabel = "FILE",
      description =
          "CA certificate to trust for an https server, its <data>/tls/ca.crt (else $QM_CA_FILE, else the config file)")
  private String caFile;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description =
          "the config file's cluster NAME instead of its current one (qm config list shows them)")
  private String context;

  public ClientConfig config(CliEnvironment env) {
    return ClientConfig.resolve(
        Optional.ofNullable(server),
        Optional.ofNullable(tokenFile),
        Optional.ofNullable(caFile),
        Optional.ofNullable(context),
        env);
  }

  public Connection connect(CliEnvironment env) {
    return Connection.open(config(env), env.connector());
  }
}
