package dev.quartermaster.store.sqlite.nativelib;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that opens a store and is then killed leaves no copy of SQLite's native library in its
 * temp directory. Each run is a fresh JVM (the library loads once per JVM) with a temp and a cache
 * directory of the test's own, so that other processes on the machine do not count.
 */
@Timeout(60)
class OpeningAStoreLitterTest {
  @TempDir Path dir;

  /**
   * What a run left: the lines it printed up to {@code open}, and sqlite's files in its temp
   * directory while it ran and after the kill.
   */
  private record Run(List<String> output, List<String> whileOpen, List<String> afterKill) {}

  private Run openAndKill(Path cacheHome) throws Exception {
    var tmp = Files.createDirectories(dir.resolve("tmp"));
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var builder =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                StoreHolder.class.getName(),
                dir.resolve("store.db").toString())
            .redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", cacheHome.toString());
    var process = builder.start();
    try {
      var output = new ArrayList<String>();
      var lines =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      for (String line; !output.contains("open"); output.add(line)) {
        line = lines.readLine();
        assertThat(line).as("the child opened the store; it printed %s", output).isNotNull();
      }
      var whileOpen = sqliteFiles(tmp);
      process.destroyForcibly(); // SIGKILL: no exit hooks, as a crash or kill -9
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      return new Run(output, whileOpen, sqliteFiles(tmp));
    } finally {
      process.destroyForcibly();
    }
  }

  private static List<String> sqliteFiles(Path tmp) throws IOException {
    try (var listing = Files.list(tmp)) {
      return listing
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("sqlite-"))
          .sorted()
          .toList();
    }
  }

  @Test
  void aKilledProcessLeavesNoLibraryInTmp() throws Exception {
    var cache = dir.resolve("cache");
    var run = openAndKill(cache);
    assertThat(run.whileOpen()).as("nothing extracted into tmp").isEmpty();
    assertThat(run.afterKill()).isEmpty();
    try (var kept = Files.walk(cache.resolve("quartermaster"))) {
      assertThat(kept.map(p -> p.getFileName().toString())).contains("libsqlitejdbc.so");
    }
  }

  /**
   * Where the cache cannot be made, it says so, and sqlite-jdbc extracts to tmp as it always did.
   */
  @Test
  void withoutACacheItWarnsAndSqliteExtractsToTmpAsBefore() throws Exception {
    var notADirectory = Files.writeString(dir.resolve("file"), "x");
    var run = openAndKill(notADirectory.resolve("cache"));
    assertThat(String.join("\n", run.output()))
        .contains("SQLite's native library: cannot keep it in");
    assertThat(run.whileOpen()).anyMatch(n -> n.endsWith("-libsqlitejdbc.so"));
    assertThat(run.afterKill())
        .as("the litter this change is about")
        .anyMatch(n -> n.endsWith("-libsqlitejdbc.so"));
  }
}
