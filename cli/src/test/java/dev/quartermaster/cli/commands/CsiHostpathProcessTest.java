package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code qm csi hostpath} as a real process: it says where it listens, serves there, and cleans up
 * when killed.
 */
@Timeout(120)
class CsiHostpathProcessTest {
  private final Path dir;
  private Process process;

  CsiHostpathProcessTest() throws IOException {
    // Short, for the socket path (sun_path is 108 bytes).
    dir = Files.createTempDirectory(Path.of("/tmp"), "qmcli");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    try (var walk = Files.walk(dir)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Test
  void servesUntilKilled() throws Exception {
    var socket = dir.resolve("csi.sock");
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    process =
        new ProcessBuilder(
                List.of(
                    java,
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "dev.quartermaster.cli.Main",
                    "csi",
                    "hostpath",
                    "--endpoint",
                    "unix://" + socket,
                    "--node-id",
                    "n1",
                    "--state",
                    dir.resolve("state").toString(),
                    "--capacity",
                    "64Mi",
                    "--staging",
                    "symlink"))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    var stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    var line =
        CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return stdout.readLine();
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                })
            .get(60, TimeUnit.SECONDS);

    assertThat(line)
        .isEqualTo(
            "hostpath.csi.quartermaster.dev listening on unix://"
                + socket
                + " (node n1, controller+node, staging symlink, state "
                + dir.resolve("state")
                + ")");

    try (var client = GrpcCsiPlugin.open("unix://" + socket, Duration.ofSeconds(20))) {
      assertThat(client.probe().toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
      var volume =
          client
              .createVolume("v", 1 << 20, AccessMode.SingleNodeWriter, Map.of())
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      assertThat(dir.resolve("state/volumes").resolve(volume.volumeId())).isDirectory();
      assertThat(client.capacity().toCompletableFuture().get(30, TimeUnit.SECONDS))
          .isEqualTo(63L << 20);
    }

    process.destroy(); // SIGTERM
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(socket).doesNotExist();
  }
}
