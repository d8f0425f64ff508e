package dev.quartermaster.agent.discovery;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns what a backend read into usable GPUs by checking each one's {@code /dev/nvidia<minor>}
 * under the device root now: a GPU whose node is missing or wrong is left out, and the problem
 * names the path.
 */
public final class GpuNodes {
  private GpuNodes() {}

  public static DiscoveryResult.Found verify(
      Path root, String source, List<GpuInfo> infos, List<String> problemsSoFar) {
    var problems = new ArrayList<>(problemsSoFar);
    var gpus = new ArrayList<DiscoveredGpu>();
    Numbering numbering;
    try {
      numbering = Numbering.load(root);
    } catch (IOException | IllegalArgumentException e) {
      problems.add("cannot read the device numbering under " + root + ": " + e.getMessage());
      return new DiscoveryResult.Found(source, gpus, problems);
    }
    for (var info : infos) {
      var containerPath = "/dev/nvidia" + info.minor();
      var hostPath = root.resolve("dev").resolve("nvidia" + info.minor());
      switch (numbering.gpu(info.minor())) {
        case Numbering.Expected.Unknown u ->
            problems.add("gpu-" + info.index() + " (" + info.uuid() + "): " + u.why());
        case Numbering.Expected.Known k -> {
          switch (NodeVerifier.verify(containerPath, hostPath, k.expectation())) {
            case NodeVerifier.Verdict.Ok ok -> gpus.add(DiscoveredGpu.of(info, ok.node()));
            case NodeVerifier.Verdict.Bad bad ->
                problems.add(
                    "gpu-" + info.index() + " (" + info.uuid() + "): " + bad.problem().message());
          }
        }
      }
    }
    return new DiscoveryResult.Found(source, gpus, problems);
  }
}
