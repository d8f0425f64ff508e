package dev.quartermaster.sim.world;

import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import java.util.List;

/**
 * I5 in the store: no single-writer volume has two write claims, and no single-node volume claims
 * from two nodes. Judged over the store alone, so the simulation ({@link Promises}) and the
 * partitions bench's history ({@link HistoryPromises}) say it the same way.
 */
final class VolumeClaimPromise {
  private VolumeClaimPromise() {}

  static void check(StoreView view, List<String> out) {
    for (var v : view.volumes()) {
      var mode = v.spec().accessMode();
      boolean singleWriter = mode != AccessMode.MultiNodeMultiWriter;
      boolean singleNode =
          mode == AccessMode.SingleNodeWriter || mode == AccessMode.SingleNodeReaderOnly;
      var writers =
          v.status().claims().stream().filter(c -> c.mode() == VolumeClaim.Mode.Write).toList();
      if (singleWriter && writers.size() > 1) {
        out.add(
            "I5 store: volume "
                + v.metadata().name()
                + " ("
                + mode
                + ") has write claims of "
                + writers);
      }
      var nodes = v.status().claims().stream().map(VolumeClaim::node).distinct().toList();
      if (singleNode && nodes.size() > 1) {
        out.add(
            "I5 store: volume " + v.metadata().name() + " (" + mode + ") is claimed from " + nodes);
      }
    }
  }
}
