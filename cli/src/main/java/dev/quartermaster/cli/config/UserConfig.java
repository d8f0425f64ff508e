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
   * current; the file's other clusters are kept. Returns what changed, for the one line a server
   * prints about it: it changes what plain {@code qm} commands talk to.
   */
  public Change write(Path file) {
    var name = server.map(s -> java.net.URI.create(s).getAuthority()).orElse(ConfigFile.LEGACY);
    var before = new java.util.concurrent.atomic.AtomicReference<ConfigFile>(ConfigFile.EMPTY);
    ConfigFile.update(
        file,
        f -> {
          before.set(f);
          return f.with(name, this);
        });
    return new Change(
        file, name, before.get().clusters().containsKey(name), before.get().current());
  }

  /**
   * What {@link #write} did to the file.
   *
   * @param file the file
   * @param cluster the cluster written, now current
   * @param refreshed whether it was there already (else added)
   * @param previous the cluster that was current before, if any
   */
  public record Change(Path file, String cluster, boolean refreshed, Optional<String> previous) {
    /**
     * {@code /home/u/.config/quartermaster/config.yaml: cluster 10.0.0.5:7480 added and made
     * current (was 127.0.0.1:7480; qm config use 127.0.0.1:7480 goes back)}.
     */
    public String describe() {
      var switched = previous.filter(p -> !p.equals(cluster));
      return file
          + ": cluster "
          + cluster
          + (refreshed ? " refreshed" : " added")
          + (switched.isPresent() || previous.isEmpty() ? " and made current" : ", still current")
          + switched
              .map(p -> " (was " + p + "; qm config use " + p + " goes back)")
              .orElse(" (plain qm commands use it)");
    }
  }
}
