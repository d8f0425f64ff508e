package dev.quartermaster.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.TestEnvironments;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigTest {
  @TempDir Path dir;

  private Path home;
  private Path work;

  @BeforeEach
  void setUp() throws IOException {
    home = Files.createDirectories(dir.resolve("home"));
    work = Files.createDirectories(dir.resolve("work"));
  }

  private CliEnvironment env(Map<String, String> variables) {
    return TestEnvironments.of(variables, work, home);
  }

  private void writeUserConfig(String server, String tokenFile) {
    new UserConfig(Optional.of(server), Optional.of(tokenFile))
        .write(home.resolve(".config/quartermaster/config.yaml"));
  }

  private static ClientConfig resolve(
      Optional<String> server, Optional<String> token, CliEnvironment env) {
    return ClientConfig.resolve(server, token, env);
  }

  @Test
  void withNothingConfiguredUsesTheLocalServerDefaults() {
    var config = resolve(Optional.empty(), Optional.empty(), env(Map.of()));

    assertThat(config.server()).isEqualTo(URI.create("http://127.0.0.1:7480"));
    assertThat(config.tokenFile()).isEqualTo(work.resolve(".qm/admin.token"));
  }

  @Test
  void theCaComesFromTheFlagTheVariableOrTheFileOfTheSameServer() {
    new UserConfig(
            Optional.of("https://10.0.0.5:7480"),
            Optional.of("/srv/qm/admin.token"),
            Optional.of("/srv/qm/tls/ca.crt"))
        .write(home.resolve(".config/quartermaster/config.yaml"));

    assertThat(
            ClientConfig.resolve(
                    Optional.empty(), Optional.empty(), Optional.empty(), env(Map.of()))
                .caFile())
        .contains(Path.of("/srv/qm/tls/ca.crt"));
    assertThat(
            ClientConfig.resolve(
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    env(Map.of("QM_CA_FILE", "/etc/qm/ca.crt")))
                .caFile())
        .contains(Path.of("/etc/qm/ca.crt"));
    assertThat(
            ClientConfig.resolve(
                    Optional.empty(), Optional.empty(), Optional.of("mine.crt"), env(Map.of()))
                .caFile())
        .contains(work.resolve("mine.crt"));
    // Another server than the file's: the file's CA is not that server's.
    assertThat(
            ClientConfig.resolve(
                    Optional.of("https://other:7480"),
                    Optional.empty(),
                    Optional.empty(),
                    env(Map.of()))
                .caFile())
        .isEmpty();
    // A --server that names a cluster the file knows, current or not: that cluster's CA.
    new UserConfig(Optional.of("http://127.0.0.1:7494"), Optional.of("/tmp/up/admin.token"))
        .write(home.resolve(".config/quartermaster/config.yaml"));
    assertThat(
            ClientConfig.resolve(
                    Optional.of("https://10.0.0.5:7480"),
                    Optional.of("/srv/qm/admin.token"),
                    Optional.empty(),
                    env(Map.of()))
                .caFile())
        .contains(Path.of("/srv/qm/tls/ca.crt"));
  }

  /** A server that makes itself current says so, and how to go back, in one line. */
  @Test
  void writingSaysWhatItAddedAndWhatWasCurrentBefore() {
    var file = home.resolve(".config/quartermaster/config.yaml");
    var first =
        new UserConfig(Optional.of("http://127.0.0.1:7480"), Optional.of("/a.token")).write(file);
    assertThat(first.describe())
        .isEqualTo(
            file + ": cluster 127.0.0.1:7480 added and made current (plain qm commands use it)");
    var second =
        new UserConfig(Optional.of("http://127.0.0.1:7481"), Optional.of("/b.token")).write(file);
    assertThat(second.describe())
        .isEqualTo(
            file
                + ": cluster 127.0.0.1:7481 added and made current (was 127.0.0.1:7480; qm config"
                + " use 127.0.0.1:7480 goes back)");
    var again =
        new UserConfig(Optional.of("http://127.0.0.1:7481"), Optional.of("/b.token")).write(file);
    assertThat(again.describe())
        .isEqualTo(
            file + ": cluster 127.0.0.1:7481 refreshed, still current (plain qm commands use it)");
  }

  @Test
  void eachServerKeepsItsOwnClusterAndTheLastStartedIsCurrent() throws IOException {
    var file = home.resolve(".config/quartermaster/config.yaml");
    new UserConfig(
            Optional.of("https://10.0.0.5:7480"),
            Optional.of("/srv/qm/admin.token"),
            Optional.of("/srv/qm/tls/ca.crt"))
        .write(file); // qm server on a machine of the fleet
    new UserConfig(Optional.of("http://127.0.0.1:7494"), Optional.of("/tmp/up/admin.token"))
        .write(file); // then a qm up

    var config = ConfigFile.read(file).orElseThrow();
    assertThat(config.clusters()).containsOnlyKeys("10.0.0.5:7480", "127.0.0.1:7494");
    assertThat(config.current()).contains("127.0.0.1:7494");
    assertThat(resolve(Optional.empty(), Optional.empty(), env(Map.of())).server())
        .isEqualTo(URI.create("http://127.0.0.1:7494"));

    var other =
        ClientConfig.resolve(
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.of("10.0.0.5:7480"),
            env(Map.of()));
    assertThat(other.server()).isEqualTo(URI.create("https://10.0.0.5:7480"));
    assertThat(other.caFile()).contains(Path.of("/srv/qm/tls/ca.crt"));

    config.use("10.0.0.5:7480", file).write(file);
    assertThat(resolve(Optional.empty(), Optional.empty(), env(Map.of())).server())
        .isEqualTo(URI.create("https://10.0.0.5:7480"));
    assertThatThrownBy(
            () ->
                ClientConfig.resolve(
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of("prod"),
                    env(Map.of())))
        .hasMessage("no cluster 'prod' in " + file + "; it has [10.0.0.5:7480, 127.0.0.1:7494]");

    // A file in the one-cluster form of earlier versions reads as cluster "default", current.
    Files.writeString(file, "server: http://old:7480\ntokenFile: /old.token\n");
    assertThat(resolve(Optional.empty(), Optional.empty(), env(Map.of())).server())
        .isEqualTo(URI.create("http://old:7480"));
    new UserConfig(Optional.of("http://127.0.0.1:7494"), Optional.of("/tmp/up/admin.token"))
        .write(file);
    assertThat(ConfigFile.read(file).orElseThrow().clusters())
        .containsOnlyKeys("default", "127.0.0.1:7494");
  }

  /**
   * An unreachable server that the config file chose says so and how to pick or forget a cluster;
   * one a flag or a variable chose does not.
   */
  @Test
  void anUnreachableClusterOfTheConfigFileSaysHowToForgetIt() throws IOException {
    var file = home.resolve(".config/quartermaster/config.yaml");
    var token = Files.writeString(work.resolve("admin.token"), "t\n");
    new UserConfig(Optional.of("http://127.0.0.1:1"), Optional.of(token.toString())).write(file);
    var fromFile = resolve(Optional.empty(), Optional.empty(), env(Map.of()));
    assertThat(fromFile.serverFromConfigFile()).isTrue();
    assertThat(fromFile.serverSource())
        .isEqualTo("the config file's current cluster (" + file + ")");
    try (var connection = Connection.open(fromFile, ApiConnector.http())) {
      assertThat(Connection.unreachableHint())
          .hasValueSatisfying(h -> assertThat(h).contains("qm config delete NAME"));
    }
    var fromFlag =
        resolve(Optional.of("http://127.0.0.1:2"), Optional.of(token.toString()), env(Map.of()));
    assertThat(fromFlag.serverSource()).isEqualTo("--server");
    try (var connection = Connection.open(fromFlag, ApiConnector.http())) {
      assertThat(Connection.unreachableHint()).isEmpty();
    }
  }

  /** A stopped cluster need not stay current: deleted, plain commands no longer go to it. */
  @Test
  void aDeletedClusterIsGoneAndNoLongerCurrent() {
    var file = home.resolve(".config/quartermaster/config.yaml");
    new UserConfig(Optional.of("https://10.0.0.5:7480"), Optional.of("/srv/qm/admin.token"))
        .write(file);
    new UserConfig(Optional.of("http://127.0.0.1:7494"), Optional.of("/tmp/up/admin.token"))
        .write(file);
    ConfigFile.update(file, c -> c.without("127.0.0.1:7494", file));
    var config = ConfigFile.read(file).orElseThrow();
    assertThat(config.clusters()).containsOnlyKeys("10.0.0.5:7480");
    assertThat(config.current()).isEmpty();
    assertThat(resolve(Optional.empty(), Optional.empty(), env(Map.of())).server())
        .isEqualTo(URI.create(ClientConfig.DEFAULT_SERVER));
    ConfigFile.update(file, c -> c.without("10.0.0.5:7480", file));
    assertThat(ConfigFile.read(file).orElseThrow().clusters()).isEmpty();
    assertThatThrownBy(() -> ConfigFile.read(file).orElseThrow().without("gone", file))
        .hasMessageContaining("no cluster 'gone'");
  }

  @Test
  void configFileBeatsDefaults() {
    writeUserConfig("http://10.0.0.5:7480", "/srv/qm/admin.token");

    var config = resolve(Optional.empty(), Optional.empty(), env(Map.of()));

    assertThat(config.server()).isEqualTo(URI.create("http://10.0.0.5:7480"));
    assertThat(config.tokenFile()).isEqualTo(Path.of("/srv/qm/admin.token"));
  }

  @Test
  void environmentBeatsConfigFile() {
    writeUserConfig("http://10.0.0.5:7480", "/srv/qm/admin.token");
    var variables = Map.of("QM_SERVER", "http://env:1", "QM_TOKEN_FILE", "env.token");

    var config = resolve(Optional.empty(), Optional.empty(), env(variables));

    assertThat(config.server()).isEqualTo(URI.create("http://env:1"));
    assertThat(config.tokenFile()).isEqualTo(work.resolve("env.token"));
  }

  @Test
  void flagsBeatEnvironment() {
    writeUserConfig("http://10.0.0.5:7480", "/srv/qm/admin.token");
    var variables = Map.of("QM_SERVER", "http://env:1", "QM_TOKEN_FILE", "env.token");

    var config = resolve(Optional.of("http://flag:2"), Optional.of("~/flag.token"), env(variables));

    assertThat(config.server()).isEqualTo(URI.create("http://flag:2"));
    assertThat(config.tokenFile()).isEqualTo(home.resolve("flag.token"));
  }

  @Test
  void eachSettingIsResolvedOnItsOwn() {
    writeUserConfig("http://file:3", "/file.token");

    var config =
        resolve(
            Optional.empty(), Optional.of("flag.token"), env(Map.of("QM_SERVER", "http://env:1")));

    assertThat(config.server()).isEqualTo(URI.create("http://env:1"));
    assertThat(config.tokenFile()).isEqualTo(work.resolve("flag.token"));
  }

  @Test
  void xdgConfigHomeMovesTheConfigFile() {
    var xdg = dir.resolve("xdg");
    new UserConfig(Optional.of("http://xdg:4"), Optional.empty())
        .write(xdg.resolve("quartermaster/config.yaml"));
    writeUserConfig("http://home:5", "/home.token");

    var config =
        resolve(Optional.empty(), Optional.empty(), env(Map.of("XDG_CONFIG_HOME", xdg.toString())));

    assertThat(config.server()).isEqualTo(URI.create("http://xdg:4"));
    assertThat(config.tokenFile()).isEqualTo(work.resolve(".qm/admin.token"));
  }

  @Test
  void blankVariablesCountAsUnset() {
    var variables = new HashMap<String, String>();
    variables.put("QM_SERVER", "");
    variables.put("QM_TOKEN_FILE", "  ");

    var config = resolve(Optional.empty(), Optional.empty(), env(variables));

    assertThat(config.server()).isEqualTo(URI.create(ClientConfig.DEFAULT_SERVER));
  }

  @Test
  void aBareHostAndPortIsTakenAsHttp() {
    var config = resolve(Optional.of("10.1.2.3:7480"), Optional.empty(), env(Map.of()));

    assertThat(config.server()).isEqualTo(URI.create("http://10.1.2.3:7480"));
  }

  @Test
  void aServerThatIsNotAUrlIsAnError() {
    assertThatThrownBy(() -> resolve(Optional.of("ftp://x"), Optional.empty(), env(Map.of())))
        .isInstanceOf(CliException.class)
        .hasMessage("server 'ftp://x' must be a URL like http://127.0.0.1:7480");
  }

  @Test
  void aMissingTokenFileSaysHowToGetOne() {
    var config = resolve(Optional.empty(), Optional.empty(), env(Map.of()));

    assertThatThrownBy(config::readToken)
        .isInstanceOf(CliException.class)
        .hasMessageContaining(work.resolve(".qm/admin.token").toString())
        .hasMessageContaining("start a server with ./qm server, or pass --token-file");
  }

  @Test
  void theTokenIsReadTrimmed() throws IOException {
    Files.writeString(work.resolve("t"), "abc123\n");

    var config = resolve(Optional.empty(), Optional.of("t"), env(Map.of()));

    assertThat(config.readToken()).isEqualTo("abc123");
  }

  @Test
  void aMalformedConfigFileIsAnErrorOnlyWhenItIsNeeded() throws IOException {
    var file = home.resolve(".config/quartermaster/config.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "server: [unclosed\n");

    assertThatThrownBy(() -> resolve(Optional.empty(), Optional.empty(), env(Map.of())))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("config file " + file + " is malformed");
    var config = resolve(Optional.of("http://a:1"), Optional.of("t"), env(Map.of()));
    assertThat(config.server()).isEqualTo(URI.create("http://a:1"));
  }

  @Test
  void theConfigFileRoundTripsAndToleratesUnknownFields() throws IOException {
    var file = dir.resolve("c/config.yaml");
    new UserConfig(Optional.of("http://h:1"), Optional.of("/t")).write(file);
    Files.writeString(file, Files.readString(file) + "futureField: 3\n");

    assertThat(UserConfig.read(file))
        .contains(new UserConfig(Optional.of("http://h:1"), Optional.of("/t")));
    assertThat(UserConfig.read(dir.resolve("absent.yaml"))).isEmpty();
  }
}
