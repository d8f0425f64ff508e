package dev.quartermaster.csi.hostpath;

import static dev.quartermaster.csi.grpc.Calls.await;
import static dev.quartermaster.csi.grpc.Calls.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.Calls;
import dev.quartermaster.csi.plugin.CsiCode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The same plugin without gRPC: the whole lifecycle through {@link HostpathPlugin#asCsiPlugin()}.
 */
@Timeout(60)
class InProcessHostpathTest {
  private final Path dir = Calls.shortTempDir();

  @AfterEach
  void tearDown() {
    Calls.deleteTree(dir);
  }

  @Test
  void fullLifecycleInProcess() {
    var mode = AccessMode.SingleNodeWriter;
    try (var plugin =
        HostpathPlugin.open(HostpathConfig.of("n1", dir.resolve("state"))).asCsiPlugin()) {
      assertThat(await(plugin.probe())).isTrue();
      var volume = await(plugin.createVolume("v", 1 << 20, mode, Map.of()));
      var context = await(plugin.controllerPublish(volume.volumeId(), "n1", mode, false));
      var staging = dir.resolve("stage").toString();
      var target = dir.resolve("target").toString();
      assertThat(failure(plugin.nodePublish("v", context, staging, target, mode, false)).code())
          .isEqualTo(CsiCode.FAILED_PRECONDITION);
      await(plugin.nodeStage("v", context, staging, mode));
      await(plugin.nodePublish("v", context, staging, target, mode, false));
      assertThat(Path.of(target)).isDirectory();
      await(plugin.nodeUnpublish("v", target));
      await(plugin.nodeUnstage("v", staging));
      await(plugin.controllerUnpublish("v", "n1"));
      await(plugin.deleteVolume("v"));
      assertThat(await(plugin.capacity())).isEqualTo(HostpathConfig.DEFAULT_CAPACITY);
    }
  }
}
