package dev.quartermaster.cli.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.CliEnvironment;
import dev.quartermaster.cli.CliException;
import dev.quartermaster.cli.config.ApiConnector;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A manifest larger than the reader takes is refused by name before the YAML parser sees it. */
class ManifestReaderTest {
  @TempDir Path dir;

  @Test
  void anOversizedFileOrStdinIsRefusedNamingItAndTheLimit() throws Exception {
    var big = "kind: Node\nmetadata: {name: \"" + "x".repeat(ManifestReader.MAX_BYTES) + "\"}\n";
    Files.writeString(dir.resolve("big.yaml"), big);
    var env = env(new byte[0]);
    assertThatThrownBy(() -> new ManifestReader(env).read(List.of("big.yaml")))
        .isInstanceOf(CliException.class)
        .hasMessage(
            "big.yaml is larger than 4 MiB; split it into several files"
                + " (the server takes at most 1 MiB per object)");
    var fromStdin = env(big.getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> new ManifestReader(fromStdin).read(List.of("-")))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("standard input is larger than 4 MiB");
  }

  @Test
  void aFileJustUnderTheLimitIsRead() throws Exception {
    Files.writeString(dir.resolve("ok.yaml"), "kind: Node\nmetadata: {name: n1}\n");
    assertThat(new ManifestReader(env(new byte[0])).read(List.of("ok.yaml"))).hasSize(1);
  }

  private CliEnvironment env(byte[] stdin) {
    return new CliEnvironment(
        Map.of(),
        dir,
        dir.resolve("home"),
        new ByteArrayInputStream(stdin),
        Clock.systemUTC(),
        ApiConnector.http());
  }
}
