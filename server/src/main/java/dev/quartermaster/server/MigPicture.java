package dev.quartermaster.server;

import dev.quartermaster.api.device.mig.MigGpu;
import dev.quartermaster.api.device.mig.NodeMigGpus;
import dev.quartermaster.api.node.MigMode;
import java.util.List;

/**
 * {@code GET /api/v1/nodes/NAME?as=mig}: the node's MIG GPUs as the dashboard draws them, read by
 * the same {@link NodeMigGpus} as {@code qm describe node} and the metrics, so the browser only
 * lays out boxes.
 */
record MigPicture(String kind, String node, List<Gpu> gpus) {
  static final String KIND = "MigPicture";

  /**
   * @param mode as describe says it ({@code Dynamic}, or wish and state when they differ)
   * @param cells left to right; an empty profile is a position no instance takes
   * @param fragmented empty unless freed slices left it fragmented
   */
  record Gpu(
      String gpu,
      String mode,
      String published,
      String model,
      int freeCompute,
      int totalCompute,
      List<Cell> cells,
      String fragmented,
      List<String> problems) {}

  /**
   * @param holder empty when free
   */
  record Cell(int start, int span, String profile, String holder) {}

  static MigPicture of(String node, NodeMigGpus mig) {
    return new MigPicture(KIND, node, mig.gpus().stream().map(MigPicture::gpu).toList());
  }

  private static Gpu gpu(MigGpu g) {
    return new Gpu(
        g.gpu(),
        g.modeText(),
        g.published().map(MigMode::name).orElse(""),
        g.occupancy().map(o -> o.geometry().model()).orElse(""),
        g.freeCompute(),
        g.totalCompute(),
        g.cells().stream()
            .map(
                c ->
                    new Cell(
                        c.start(),
                        c.span(),
                        c.instance().map(i -> i.placement().profile().label()).orElse(""),
                        c.instance().flatMap(i -> i.heldBy()).orElse("")))
            .toList(),
        g.fragmentation().orElse(""),
        g.problems());
  }
}
