package dev.quartermaster.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The text reader of the config file may only ever agree with the YAML parser: it reads every file
 * {@link ConfigFile#write} writes, and anything else it either reads the same or leaves to YAML.
 */
class ConfigTextTest {
  private static final YAMLMapper YAML = YAMLMapper.builder().addModule(new Jdk8Module()).build();

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
                Optional.of("/home/u s/.qm " + c + "/admin.token"),
                random.nextBoolean() ? Optional.of("/data/tls/ca.crt") : Optional.empty());
        file = file.with(server.substring("http://".length()), entry);
      }
      var path = dir.resolve("config-" + round + ".yaml");
      file.write(path);
      var text = Files.readString(path);
      assertThat(ConfigText.parse(text)).as(text).contains(YAML.readValue(text, ConfigFile.class));
      assertThat(ConfigFile.read(path)).contains(file);
    }
  }

  @Test
  void aFileInAnotherLayoutIsLeftToTheYamlParserOrReadTheSame() throws Exception {
    var layouts =
        List.of(
            "current: a\nclusters:\n  a:\n    server: http://h:1\n", // plain scalars
            "current: \"a\" # mine\nclusters:\n  \"a\":\n    server: \"http://h:1\"\n", // a comment
            // after a
            // value
            "current: \"a\"\nclusters:\n  \"a\": {server: \"http://h:1\"}\n", // flow style
            "current: \"a\"\nclusters:\n  \"a\":\n    server: \"http://h:1\"\n    user: \"x\"\n", // a field it does not know
            "current: \"a\\u0062\"\nclusters:\n  \"ab\":\n    server: \"http://h:1\"\n", // an
            // escape
            "server: \"http://h:1\"\ntokenFile: \"/t\"\n", // the older one-cluster form
            "current: \"a\"\nclusters:\n  \"a\":\n      server: \"http://h:1\"\n", // deeper
            // indentation
            "current: \"a\"\nclusters:\n  \"a\":\n    server: \"http://h:1\"\n  \"a\":\n    server: \"http://h:2\"\n",
            "current: \"a\"\r\nclusters:\r\n  \"a\":\r\n    server: \"http://h:1\"\r\n"); // CRLF
    for (var text : layouts) {
      var read = ConfigText.parse(text);
      if (read.isPresent()) {
        assertThat(read.get()).as(text).isEqualTo(YAML.readValue(text, ConfigFile.class));
      }
    }
    assertThat(ConfigText.parse("current: \"a\" # mine\n")).isEmpty();
    assertThat(ConfigText.parse("server: \"http://h:1\"\n")).isEmpty();
    assertThat(ConfigText.parse("clusters: {}\n"))
        .contains(
            new ConfigFile(
                Optional.empty(), Map.of(), Optional.empty(), Optional.empty(), Optional.empty()));
  }
}
