package dev.quartermaster.cli.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.quartermaster.cli.CliEnvironment;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One cluster in the client configuration file ({@link ConfigFile}): where its server is and how to
 * reach it.
 *
 * @param server the server's base URL
 * @param tokenFile the absolute path of the file holding the bearer token
 * @param caFile the absolute path of the CA certificate to trust, for an {@code https} server
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UserConfig(
    Optional<String> server, Optional<String> tokenFile, Optional<String> caFile) {
  public UserConfig {
    server = server == null ? Optional.empty() : server.filter(s -> !s.isBlank());
    tokenFile = tokenFile == null ? Optional.empty() : tokenFile.filter(s -> !s.isBlank());
    caFile = caFile == null ? Optional.empty() : caFile.filter(s -> !s.isBlank());
  }

  public UserConfig(Optional<String> server, Optional<String> tokenFile) {
    this(server, tokenFile, Optional.empty());
  }

  public static Path location(CliEnvironment env) {
    var base =
        env.variable("XDG_CONFIG_HOME").map(env::resolve).orElse(env.home().resolve(".config"));
    return base.resolve("quartermaster").resolve("config.yaml");
  }

  /** The current cluster of the file; empty when there is no file or no current cluster. */
  public static Optional<UserConfig> read(Path file) {
    return ConfigFile.read(file).flatMap(f -> f.cluster(Optional.empty(), file));
  }

  /**
   * Adds this cluster to the file (or refreshes it), named after its server's address, and makes it
   * current; the file's other clusters are kept.
   */
  public void write(Path file) {
    var name = server.map(s -> java.net.URI.create(s).getAuthority()).orElse(ConfigFile.LEGACY);
    ConfigFile.update(file, f -> f.with(name, this));
  }
}
