package dev.quartermaster.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import dev.quartermaster.cli.CliException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config file's one reader reads every file {@link ConfigFile#write} writes, and every file in
 * the block layout a person might edit it into, as a YAML parser reads it; what it cannot read is
 * an error naming the line, never a different meaning.
 */
class ConfigTextTest {
  private static final YAMLMapper YAML = YAMLMapper.builder().addModule(new Jdk8Module()).build();
  private static final Path FILE = Path.of("/home/u/.config/quartermaster/config.yaml");

  @TempDir Path dir;

  @Test
  void everyFileQmWritesIsReadAsTheYamlParserReadsIt() throws Exception {
    var random = new Random(29);
    for (int round = 0; round < 200; round++) {
      var file = ConfigFile.EMPTY;
      int clusters = random.nextInt(4);
      for (int c = 0; c < clusters; c++) {
        var server =
            "http://10.0." + random.nextInt(256) + "." + c + ":" + (7000 + random.nextInt(1000));
        var entry =
            new UserConfig(
                Optional.of(server),
                Optional.of("/home/u s/.qm \"" + c + "\" #x/admin's.token"),
                random.nextBoolean() ? Optional.of("/data/tls/ca.crt") : Optional.empty());
        file = file.with(server.substring("http://".length()), entry);
      }
      var path = dir.resolve("config-" + round + ".yaml");
      file.write(path);
      var text = Files.readString(path);
      assertThat(ConfigText.parse(text, path))
          .as(text)
          .isEqualTo(YAML.readValue(text, ConfigFile.class));
      assertThat(ConfigFile.read(path)).contains(file);
    }
  }

  @Test
  void aFileEditedByHandIsReadAsTheYamlParserReadsIt() throws Exception {
    var layouts =
        List.of(
            // plain scalars
            "current: a\nclusters:\n  a:\n    server: http://h:1\n",
            // comments after values
            "current: \"a\" # mine\nclusters:\n  \"a\": # the lab\n    server: http://h:1 # here\n",
            // single quotes
            "current: 'a'\nclusters:\n  'a':\n    server: 'http://h:1 ''x'''\n",
            // a field it does not know
            "current: \"a\"\nclusters:\n  \"a\":\n    server: \"http://h:1\"\n    user: \"x\"\n",
            // unknown subtrees, whatever they hold
            "current: a\nfuture:\n  - x\n  - {y: z}\nclusters:\n  a:\n    extra:\n      deep: [1]\n"
                + "    tokenFile: /t\n",
            // an escape
            "current: \"a\\u0062\"\nclusters:\n  \"ab\":\n    server: \"http://h:1\"\n",
            // the older one-cluster form
            "server: \"http://h:1\"\ntokenFile: \"/t\"\n",
            // deeper indentation, a document start, four spaces
            "current: \"a\"\nclusters:\n  \"a\":\n      server: \"http://h:1\"\n",
            "---\ncurrent: a\nclusters:\n    a:\n        server: http://h:1\n",
            // a null, a colon in a plain key
            "current: ~\nclusters:\n  127.0.0.1:7480:\n    server: http://127.0.0.1:7480\n",
            "clusters: {}\n",
            // CRLF
            "current: \"a\"\r\nclusters:\r\n  \"a\":\r\n    server: \"http://h:1\"\r\n");
    for (var text : layouts) {
      assertThat(ConfigText.parse(text, FILE))
          .as(text)
          .isEqualTo(YAML.readValue(text, ConfigFile.class));
    }
    assertThat(ConfigText.parse("", FILE)).isEqualTo(ConfigFile.EMPTY);
    assertThat(ConfigText.parse("# only a comment\n\n", FILE)).isEqualTo(ConfigFile.EMPTY);
  }

  @Test
  void whatItCannotReadIsAnErrorNamingTheLine() {
    var refused =
        Map.of(
            "current: a\nclusters:\n  a: {server: \"http://h:1\"}\n",
            "line 3: 'a' must hold fields",
            "current: a\nclusters:\n  a:\n    server:\n      - x\n",
            "line 5: 'server' must be text",
            "current: [a]\n",
            "line 1: 'current' must be plain or quoted text",
            "current: a\nclusters:\n  a:\n    server: x\n   tokenFile: y\n",
            "line 5: indented unlike",
            "current: a\nclusters:\n\ta:\n",
            "line 3: a tab in the indentation",
            "current: \"a\n",
            "line 1: a quote that does not close",
            "current: a\ncurrent: b\n",
            "line 2: 'current' given twice",
            "just words\n",
            "line 1: expected 'key: value'");
    refused.forEach(
        (text, rule) ->
            assertThatThrownBy(() -> ConfigText.parse(text, FILE))
                .as(text)
                .isInstanceOf(CliException.class)
                .hasMessageStartingWith("config file " + FILE + " is malformed: " + rule)
                .hasMessageEndingWith("(fix or delete it)"));
  }
}
