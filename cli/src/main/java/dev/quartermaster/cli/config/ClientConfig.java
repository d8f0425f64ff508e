package dev.quartermaster.cli.config;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where the server is and which token to present. Each setting is taken from the first source that
 * has it: the flag, then the environment ({@code QM_SERVER}, {@code QM_TOKEN_FILE}), then the
 * user's config file, then the defaults of a local {@code qm server} started in the working
 * directory.
 *
 * <p>The server may be several, comma-separated ({@code https://a:7480,https://b:7480}): servers of
 * one cluster on a shared etcd. The client uses one at a time and moves to the next when it cannot
 * reach it.
 *
 * @param tokenSource where {@code tokenFile} came from, so an error can say which setting to fix
 * @param servers every server given, {@code server} first
 * @param serverSource where {@code servers} came from ({@code --server}, {@code $QM_SERVER}, the
 *     config file's cluster, the default), so an unreachable one can say which setting chose it
 */
public record ClientConfig(
    URI server,
    Path tokenFile,
    String tokenSource,
    Optional<Path> caFile,
    List<URI> servers,
    String serverSource) {
  public ClientConfig {
    servers = servers.isEmpty() ? List.of(server) : List.copyOf(servers);
    serverSource = serverSource == null ? "" : serverSource;
  }

  public ClientConfig(
      URI server, Path tokenFile, String tokenSource, Optional<Path> caFile, List<URI> servers) {
    this(server, tokenFile, tokenSource, caFile, servers, "");
  }

  public ClientConfig(URI server, Path tokenFile, String tokenSource, Optional<Path> caFile) {
    this(server, tokenFile, tokenSource, caFile, List.of(server));
  }

  /**
   * Whether the servers are the config file's cluster (not a flag's, a variable's, the default).
   */
  public boolean serverFromConfigFile() {
    return serverSource.startsWith(FROM_FILE);
  }

  private static final String FROM_FILE = "the config file's ";

  public static final String DEFAULT_SERVER = "http://127.0.0.1:7480";
  public static final String DEFAULT_TOKEN_FILE = ".qm/admin.token";
  public static final String SERVER_VARIABLE = "QM_SERVER";
  public static final String TOKEN_FILE_VARIABLE = "QM_TOKEN_FILE";
  public static final String CA_FILE_VARIABLE = "QM_CA_FILE";

  public ClientConfig(URI server, Path tokenFile, String tokenSource) {
    this(server, tokenFile, tokenSource, Optional.empty());
  }

  public static ClientConfig resolve(
      Optional<String> serverFlag, Optional<String> tokenFileFlag, CliEnvironment env) {
    return resolve(serverFlag, tokenFileFlag, Optional.empty(), env);
  }

  /** Each setting from its flag, else its variable, else the config file, else the default. */
  public static ClientConfig resolve(
      Optional<String> serverFlag,
      Optional<String> tokenFileFlag,
      Optional<String> caFileFlag,
      CliEnvironment env) {
    return resolve(serverFlag, tokenFileFlag, caFileFlag, Optional.empty(), env);
  }

  /** As above, with the config file's cluster {@code context} instead of its current one. */
  public static ClientConfig resolve(
      Optional<String> serverFlag,
      Optional<String> tokenFileFlag,
      Optional<String> caFileFlag,
      Optional<String> context,
      CliEnvironment env) {
    var configFile = UserConfig.location(env);
    // Read the file only when a setting is still missing: a broken file must not break flag users.
    var needFile =
        context.isPresent()
            || (serverFlag.isEmpty() && env.variable(SERVER_VARIABLE).isEmpty())
            || (tokenFileFlag.isEmpty() && env.variable(TOKEN_FILE_VARIABLE).isEmpty());
    var file =
        needFile
            ? ConfigFile.read(configFile).flatMap(f -> f.cluster(context, configFile))
            : Optional.<UserConfig>empty();

    var server =
        serverFlag
            .or(() -> env.variable(SERVER_VARIABLE))
            .or(() -> file.flatMap(UserConfig::server))
            .orElse(DEFAULT_SERVER);
    var serverSource =
        serverFlag.isPresent()
            ? "--server"
            : env.variable(SERVER_VARIABLE).isPresent()
                ? "$" + SERVER_VARIABLE
                : file.flatMap(UserConfig::server).isPresent()
                    ? FROM_FILE
                        + context.map(c -> "cluster " + c).orElse("current cluster")
                        + " ("
                        + configFile
                        + ")"
                    : "the default";

    Setting token =
        tokenFileFlag
            .map(t -> new Setting(t, "--token-file"))
            .or(
                () ->
                    env.variable(TOKEN_FILE_VARIABLE).map(t -> new Setting(t, TOKEN_FILE_VARIABLE)))
            .or(
                () ->
                    file.flatMap(UserConfig::tokenFile)
                        .map(t -> new Setting(t, configFile.toString())))
            .orElse(new Setting(DEFAULT_TOKEN_FILE, "the default"));
    // The CA belongs with the server it came from: the file's only when the server is the file's
    // too.
    var serverFromFile = serverFlag.isEmpty() && env.variable(SERVER_VARIABLE).isEmpty();
    var ca =
        caFileFlag
            .or(() -> env.variable(CA_FILE_VARIABLE))
            .or(() -> serverFromFile ? file.flatMap(UserConfig::caFile) : Optional.empty())
            .or(() -> serverFromFile ? Optional.empty() : caOfCluster(server, configFile))
            .map(env::resolve);
    var servers =
        Arrays.stream(server.split(","))
            .map(String::strip)
            .filter(t -> !t.isEmpty())
            .map(ClientConfig::parseServer)
            .toList();
    if (servers.isEmpty()) {
      throw new CliException("server '" + server + "' must be a URL like " + DEFAULT_SERVER);
    }
    return new ClientConfig(
        servers.getFirst(), env.resolve(token.value()), token.source(), ca, servers, serverSource);
  }

  /**
   * The CA of the config file's cluster at {@code server} (the first address, as given), for a
   * {@code --server} or {@code $QM_SERVER} naming a cluster the file knows: {@code qm server} wrote
   * its CA there, and an https server is trusted only with it. Empty when the file has no such
   * cluster, or cannot be read (a broken file must not break flag users).
   */
  private static Optional<String> caOfCluster(String server, Path configFile) {
    var first = server.split(",")[0].strip();
    if (!first.startsWith("https://")) {
      return Optional.empty();
    }
    try {
      return ConfigFile.read(configFile).stream()
          .flatMap(f -> f.clusters().values().stream())
          .filter(c -> c.server().filter(first::equals).isPresent())
          .flatMap(c -> c.caFile().stream())
          .findFirst();
    } catch (CliException e) {
      return Optional.empty();
    }
  }

  /** The token in {@link #tokenFile}, trimmed; a missing file says how to get one. */
  public String readToken() {
    try {
      var token = Files.readString(tokenFile).trim();
      if (token.isEmpty()) {
        throw new CliException("token file " + tokenFile + " (from " + tokenSource + ") is empty");
      }
      return token;
    } catch (NoSuchFileException e) {
      throw new CliException(
          "token file "
              + tokenFile
              + " (from "
              + tokenSource
              + ") does not exist; "
              + "start a server with ./qm server, or pass --token-file");
    } catch (IOException e) {
      throw new CliException("cannot read token file " + tokenFile + ": " + e.getMessage());
    }
  }

  /** Accepts a URL, or a bare {@code host:port} as people type it. */
  static URI parseServer(String text) {
    var withScheme = text.contains("://") ? text : "http://" + text;
    try {
      var uri = new URI(withScheme);
      var scheme = Optional.ofNullable(uri.getScheme()).orElse("");
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new CliException("server '" + text + "' must be a URL like " + DEFAULT_SERVER);
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new CliException("server '" + text + "' must be a URL like " + DEFAULT_SERVER);
    }
  }

  private record Setting(String value, String source) {}
}
