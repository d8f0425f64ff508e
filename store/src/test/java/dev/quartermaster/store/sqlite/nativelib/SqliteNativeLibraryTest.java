package dev.quartermaster.store.sqlite.nativelib;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteNativeLibraryTest {
  @TempDir Path dir;

  @Test
  void theCacheIsXdgsElseTheHomes() {
    assertThat(SqliteNativeLibrary.cacheRoot(Map.of("XDG_CACHE_HOME", "/c"), "/home/u"))
        .contains(Path.of("/c/quartermaster"));
    assertThat(SqliteNativeLibrary.cacheRoot(Map.of("XDG_CACHE_HOME", "rel"), "/home/u"))
        .as("a relative XDG_CACHE_HOME does not count")
        .contains(Path.of("/home/u/.cache/quartermaster"));
    assertThat(SqliteNativeLibrary.cacheRoot(Map.of(), "/home/u"))
        .contains(Path.of("/home/u/.cache/quartermaster"));
    assertThat(SqliteNativeLibrary.cacheRoot(Map.of(), "?")).isEmpty();
  }

  @Test
  void keepsTheLibraryUnderTheCacheByVersionAndPlatform() {
    var file = SqliteNativeLibrary.keepIn(dir.resolve("quartermaster")).orElseThrow();
    assertThat(file.getFileName().toString()).isEqualTo("libsqlitejdbc.so");
    assertThat(file.getParent().getFileName().toString())
        .startsWith("sqlite-3.")
        .endsWith(
            "-" + org.sqlite.util.OSInfo.getNativeLibFolderPathForCurrentOS().replace('/', '-'));
    assertThat(file.getParent().getParent()).isEqualTo(dir.resolve("quartermaster"));
  }

  @Test
  void whereNothingCanBeKeptItSaysSoAndKeepsNothing() throws IOException {
    var notADirectory = Files.writeString(dir.resolve("file"), "x");
    assertThat(SqliteNativeLibrary.keepIn(notADirectory.resolve("quartermaster"))).isEmpty();
  }
}
