package dev.quartermaster.bench;

import dev.quartermaster.api.device.mig.MigChoice;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigInstance;
import dev.quartermaster.api.device.mig.MigOccupancy;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.device.mig.MigPlacementRule;
import dev.quartermaster.api.device.mig.MigRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A static MIG layout as mig-parted applies one: every GPU cut the same way up front; a request
 * gets a free instance of exactly its profile (as a device plugin's {@code nvidia.com/mig-…}
 * resource), the first in fleet order, or is refused. A refusal counts as fragmentation when some
 * GPU's free instances add up to the compute and memory asked, in pieces of the wrong size.
 */
record StaticMigLayout(String name, Map<String, List<Integer>> startsByLabel)
    implements MigPlacementRule {

  /** Seven {@code 1g.18gb}. */
  static final StaticMigLayout ALL_1G =
      new StaticMigLayout("static all-1g", Map.of("1g.18gb", List.of(0, 1, 2, 3, 4, 5, 6)));

  /**
   * mig-parted's {@code all-balanced} for H200-141GB: 2 × 1g.18gb, 1 × 2g.35gb, 1 × 3g.71gb (its
   * builder's table); placed 2g at 0, 1g at 2 and 3, 3g at 4.
   */
  static final StaticMigLayout ALL_BALANCED =
      new StaticMigLayout(
          "static all-balanced",
          Map.of("2g.35gb", List.of(0), "1g.18gb", List.of(2, 3), "3g.71gb", List.of(4)));

  /** A GPU cut to this layout, every instance free. */
  MigOccupancy cut(String gpu, MigGeometry geometry) {
    var instances = new ArrayList<MigInstance>();
    startsByLabel.forEach(
        (label, starts) ->
            starts.forEach(
                s ->
                    instances.add(
                        MigInstance.free(
                            new MigPlacement(geometry.profile(label).orElseThrow(), s)))));
    return new MigOccupancy(gpu, geometry, instances);
  }

  @Override
  public MigChoice choose(List<MigOccupancy> fleet, MigRequest request) {
    for (var gpu : fleet) {
      for (var p : request.candidates(gpu.geometry())) {
        for (var i : gpu.instances()) {
          if (!i.isHeld() && i.placement().profile().equals(p)) {
            return new MigChoice.Place(gpu.gpu(), i.placement());
          }
        }
      }
    }
    for (var gpu : fleet) {
      int compute = 0;
      int memory = 0;
      for (var i : gpu.instances()) {
        if (!i.isHeld()) {
          compute += i.placement().profile().computeSlices();
          memory += i.placement().profile().memorySlices();
        }
      }
      for (var p : request.candidates(gpu.geometry())) {
        if (compute >= p.computeSlices() && memory >= p.memorySlices()) {
          return new MigChoice.Refused(
              MigChoice.Refusal.FRAGMENTED, gpu.gpu() + ": free instances of other profiles");
        }
      }
    }
    return new MigChoice.Refused(MigChoice.Refusal.NO_CAPACITY, "no free " + request);
  }
}
