package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.NodeStat;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * A simulated device root's MIG state on disk, where a restarted agent (or a person) finds it:
 * {@code <root>/sim/mig} ({@link MigTable#render()}: {@code grep -c ^instance} counts the
 * instances), replaced atomically, and each instance's capability nodes under {@code
 * <root>/dev/nvidia-caps/}, made with the parent GPU's stand-in number so that a container given
 * them opens them and one not given them cannot.
 */
public final class MigFiles implements SimulatedMig.Storage {
  private final SimulatedDeviceRoot root;

  public MigFiles(SimulatedDeviceRoot root) {
    this.root = root;
  }

  /** {@code <root>/sim/mig}. */
  public Path stateFile() {
    return root.root().resolve("sim/mig");
  }

  private Path capsDir() {
    return root.devDir().resolve("nvidia-caps");
  }

  @Override
  public MigTable load() throws IOException {
    var file = stateFile();
    if (!Files.exists(file)) {
      return MigTable.empty(root.root().getFileName().toString());
    }
    return MigTable.parse(Files.readString(file, StandardCharsets.UTF_8), this::geometry);
  }

  private MigGeometry geometry(int gpu) {
    try {
      var model = root.model(gpu).orElse("");
      return MigModels.forProduct(model)
          .orElseThrow(
              () -> new IllegalArgumentException("gpu " + gpu + " (" + model + ") has no MIG"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void save(MigTable previous, MigTable next) throws IOException {
    // Nodes first: a crash between leaves a spare node, never an instance without its nodes.
    for (var i : next.instances()) {
      if (!previous.instances().contains(i)) {
        OwnerOnly.directory(capsDir());
        for (var node : capabilityNodes(i)) {
          root.makeNodeLike(node.hostPath(), "nvidia" + i.gpu());
        }
      }
    }
    var temp = stateFile().resolveSibling(".mig.tmp");
    Files.writeString(temp, next.render(), StandardCharsets.UTF_8);
    Files.move(temp, stateFile(), StandardCopyOption.ATOMIC_MOVE);
    for (var i : previous.instances()) {
      if (!next.instances().contains(i)) {
        for (var node : capabilityNodes(i)) {
          Files.deleteIfExists(node.hostPath());
        }
      }
    }
  }

  @Override
  public VerifiedNode gpuNode(int gpu) {
    var file = "nvidia" + gpu;
    return new VerifiedNode("/dev/" + file, root.devDir().resolve(file), root.standIn(file));
  }

  @Override
  public List<VerifiedNode> capabilityNodes(LiveInstance instance) {
    var number = root.standIn("nvidia" + instance.gpu());
    return List.of(instance.giCapMinor(), instance.ciCapMinor()).stream()
        .map(
            m ->
                new VerifiedNode(
                    MigCapabilities.containerPath(m),
                    capsDir().resolve(MigCapabilities.fileName(m)),
                    number))
        .toList();
  }

  /** Whether {@code node} is there now (for counting from outside, and tests). */
  public static boolean present(VerifiedNode node) {
    return !(NodeStat.of(node.hostPath()) instanceof NodeStat.Missing);
  }
}
