package dev.quartermaster.csi.hostpath;

import static dev.quartermaster.csi.grpc.Calls.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.Calls;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Staging by bind mount, where this process may mount (root with CAP_SYS_ADMIN); skipped elsewhere.
 * Whatever a failing test leaves mounted under its directory is unmounted before the directory
 * goes.
 */
@Timeout(120)
class BindMountStagingTest {
  private static final AccessMode SNW = AccessMode.SingleNodeWriter;

  private final Path dir = Calls.shortTempDir();

  @AfterEach
  void tearDown() throws IOException {
    var mine =
        Mounts.mountPoints().stream()
            .filter(p -> p.startsWith(dir.toString()))
            .sorted(Comparator.reverseOrder())
            .toList();
    for (var p : mine) {
      Mounts.unmount(Path.of(p));
    }
    Calls.deleteTree(dir);
  }

  @Test
  void stagesAndPublishesByBindMountAndHonoursReadOnly() throws Exception {
    assumeTrue(Mounts.bindPermitted(dir), "bind mounts are not permitted here");
    var config = HostpathConfig.of("n1", dir.resolve("state")).withStaging(Staging.AUTO);
    try (var server =
            HostpathServer.start(config, dir.resolve("csi.sock").toString(), Optional.empty());
        var client = GrpcCsiPlugin.open(server.endpoint(), Duration.ofSeconds(20))) {
      assertThat(server.plugin().stagingMethod()).contains(Staging.BIND_MOUNT);
      await(client.createVolume("v", 1 << 20, SNW, Map.of()));
      var context = await(client.controllerPublish("v", "n1", SNW, false));
      var staging = dir.resolve("staging/v");
      var target = dir.resolve("pods/p1/v");
      var readOnlyTarget = dir.resolve("pods/p2/v");

      await(client.nodeStage("v", context, staging.toString(), SNW));
      await(client.nodeStage("v", context, staging.toString(), SNW));
      assertThat(Mounts.isMountPoint(staging)).isTrue();
      assertThat(Files.isSymbolicLink(staging)).isFalse();

      await(client.nodePublish("v", context, staging.toString(), target.toString(), SNW, false));
      await(client.nodePublish("v", context, staging.toString(), target.toString(), SNW, false));
      Files.writeString(target.resolve("data.txt"), "written through the mount");
      assertThat(dir.resolve("state/volumes/v/data.txt")).hasContent("written through the mount");

      await(
          client.nodePublish(
              "v", context, staging.toString(), readOnlyTarget.toString(), SNW, true));
      assertThat(readOnlyTarget.resolve("data.txt")).hasContent("written through the mount");
      assertThatThrownBy(() -> Files.writeString(readOnlyTarget.resolve("other.txt"), "x"))
          .isInstanceOf(IOException.class);

      await(client.nodeUnpublish("v", readOnlyTarget.toString()));
      await(client.nodeUnpublish("v", target.toString()));
      await(client.nodeUnpublish("v", target.toString()));
      assertThat(Mounts.isMountPoint(target)).isFalse();
      assertThat(target).doesNotExist();
      await(client.nodeUnstage("v", staging.toString()));
      await(client.nodeUnstage("v", staging.toString()));
      assertThat(Mounts.isMountPoint(staging)).isFalse();
      assertThat(staging).doesNotExist();
      assertThat(dir.resolve("state/volumes/v/data.txt")).exists();
    }
  }
}
