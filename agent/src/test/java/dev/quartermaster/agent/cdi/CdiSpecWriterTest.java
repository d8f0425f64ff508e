package dev.quartermaster.agent.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.agent.devices.DeviceNode;
import dev.quartermaster.agent.devices.DirectoryDeviceRoot;
import dev.quartermaster.agent.devices.Gpu;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.names.UnsafeNameException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;
  @TempDir Path cdi;

  private List<Gpu> gpus() throws Exception {
    DirectoryDeviceRoot.describeGpu(root, "gpu-0", "GPU-aaaa", "NVIDIA H100", 85_899_345_920L, 0);
    DirectoryDeviceRoot.describeGpu(root, "gpu-1", "GPU-bbbb", "NVIDIA H100", 85_899_345_920L, 1);
    var inventory = new DirectoryDeviceRoot(root).scan();
    assertThat(inventory.problems()).isEmpty();
    return inventory.gpus();
  }

  @Test
  void writesOneValidSpecPerClaimAndRemovesIt() throws Exception {
    var writer = new CdiSpecWriter(cdi);
    var claim = new ClaimRef("7f3c0d2e-1111-4222-8333-444455556666", "train-a");
    var names = writer.write(claim, gpus());
    assertThat(names).containsExactly(
        "quartermaster.dev/gpu=7f3c0d2e-1111-4222-8333-444455556666-gpu-0",
        "quartermaster.dev/gpu=7f3c0d2e-1111-4222-8333-444455556666-gpu-1");
    var file = cdi.resolve("quartermaster.dev-gpu_7f3c0d2e-1111-4222-8333-444455556666.json");
    var spec = JSON.readTree(file.toFile());
    assertThat(CdiSchema.problems(spec)).isEmpty();
    assertThat(spec.path("cdiVersion").asText()).isEqualTo("0.5.0"); // hostPath under a device root
    var node = spec.path("devices").get(0).path("containerEdits").path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia0");
    assertThat(node.path("hostPath").asText()).isEqualTo(root.resolve("dev/nvidia0").toString());
    assertThat(node.path("type").asText()).isEqualTo("c");
    assertThat(node.path("major").asLong()).isEqualTo(195);
    assertThat(node.path("minor").asLong()).isZero();
    assertThat(writer.claimUids()).containsExactly(claim.uid());
    try (var files = Files.list(cdi)) {
      assertThat(files).containsExactly(file); // no temp file left behind
    }
    writer.remove(claim.uid());
    writer.remove(claim.uid()); // idempotent
    assertThat(file).doesNotExist();
    assertThat(writer.claimUids()).isEmpty();
  }

  @Test
  void usesTheMinimumVersionWhenNoFeatureNeedsMore() throws Exception {
    var gpu = new Gpu("gpu-0", "GPU-x", "m", 1, 0, new DeviceNode("/dev/nvidia0", "/dev/nvidia0", 'c', 195, 0));
    var spec = JSON.readTree(CdiSpecWriter.render(new ClaimRef("abc-1", "c"), List.of(gpu)));
    assertThat(spec.path("cdiVersion").asText()).isEqualTo("0.3.0");
    assertThat(CdiSchema.problems(spec)).isEmpty();
    // A claim uid starting with a digit makes the device name start with one: 0.5.0.
    var digit = JSON.readTree(CdiSpecWriter.render(new ClaimRef("1bc-1", "c"), List.of(gpu)));
    assertThat(digit.path("cdiVersion").asText()).isEqualTo("0.5.0");
    assertThat(CdiSchema.problems(digit)).isEmpty();
  }

  @Test
  void theSchemaCheckCatchesABrokenSpec() throws Exception {
    var broken = JSON.readTree("{\"cdiVersion\":\"0.5.0\",\"kind\":\"nokind\",\"devices\":[{\"name\":\"-x\"}]}");
    assertThat(CdiSchema.problems(broken)).hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void unsafeClaimUidsAndDeviceNamesAreRefusedAndNothingIsWritten() throws Exception {
    var writer = new CdiSpecWriter(cdi);
    var good = gpus();
    var evil = new Gpu("../../etc", "u", "m", 1, 0, good.getFirst().node());
    assertThatThrownBy(() -> writer.write(new ClaimRef("ok-1", "c"), List.of(evil)))
        .isInstanceOf(UnsafeNameException.class).hasMessageContaining("device name '../../etc'");
    for (var uid : List.of("../x", "a/b", "..", "a\0b", "", " x")) {
      assertThatThrownBy(() -> writer.remove(uid)).isInstanceOf(UnsafeNameException.class);
      assertThatThrownBy(() -> writer.specPath("gpu", uid)).isInstanceOf(UnsafeNameException.class);
    }
    try (var files = Files.list(cdi)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aDeviceRootReportsWhatItCouldNotUse() throws Exception {
    gpus();
    Files.createDirectories(root.resolve("gpus/Bad_Name"));
    Files.createDirectories(root.resolve("gpus/gpu-9"));
    Files.writeString(root.resolve("gpus/gpu-9/minor"), "9");
    var inventory = new DirectoryDeviceRoot(root).scan();
    assertThat(inventory.gpus()).extracting(Gpu::name).containsExactly("gpu-0", "gpu-1");
    assertThat(inventory.problems()).anyMatch(p -> p.contains("Bad_Name")).anyMatch(p -> p.contains("gpu-9"));
  }
}
