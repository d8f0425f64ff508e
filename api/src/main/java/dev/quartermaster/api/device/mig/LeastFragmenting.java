package dev.quartermaster.api.device.mig;

import java.util.List;

/**
 * The placement that keeps larger profiles possible. Among every GPU and start where the request's
 * profile can be created (its smallest serving profile first; a larger one only where none fits):
 *
 * <ol>
 *   <li>a GPU already partly used before an empty one — whole GPUs stay whole for whole-GPU claims;
 *   <li>the least loss of placeable counts ({@link MigFragmentation}): largest profiles kept first;
 *   <li>the tightest GPU, least compute left after (best fit);
 *   <li>the earlier GPU in the fleet's order, then the lower start.
 * </ol>
 *
 * On an empty H200 a {@code 1g} goes to position 6, not 0: at 0 it would block the {@code 4g} and a
 * {@code 3g}; at 6 it blocks one {@code 3g} only.
 */
public final class LeastFragmenting implements MigPlacementRule {
  public static final LeastFragmenting RULE = new LeastFragmenting();

  private LeastFragmenting() {}

  /** One candidate's rank; lower is better. */
  private record Rank(boolean opensWholeGpu, int[] loss, int computeLeft) {
    boolean betterThan(Rank o) {
      if (opensWholeGpu != o.opensWholeGpu) {
        return !opensWholeGpu;
      }
      int c = java.util.Arrays.compare(loss, o.loss);
      if (c != 0) {
        return c < 0;
      }
      return computeLeft < o.computeLeft;
    }
  }

  @Override
  public MigChoice choose(List<MigOccupancy> fleet, MigRequest request) {
    return choose(fleet, request, (gpu, placement) -> true);
  }

  /**
   * As {@link #choose(List, MigRequest)}, among the placements {@code allowed} lets it take only:
   * the allocator's, where a device class's selectors and the published slices (a static layout's
   * instances only) bound the choice.
   */
  public MigChoice choose(
      List<MigOccupancy> fleet,
      MigRequest request,
      java.util.function.BiPredicate<String, MigPlacement> allowed) {
    int sizes = 0;
    for (var gpu : fleet) {
      sizes = Math.max(sizes, request.candidates(gpu.geometry()).size());
    }
    // Smallest serving profile first, fleet-wide: a bigger one only where none smaller fits
    // anywhere.
    for (int k = 0; k < sizes; k++) {
      MigChoice.Place best = null;
      Rank bestRank = null;
      for (var gpu : fleet) {
        var candidates = request.candidates(gpu.geometry());
        if (k >= candidates.size()) {
          continue;
        }
        var profile = candidates.get(k);
        int used = gpu.usedMask();
        int freeCompute = gpu.freeCompute();
        if (profile.computeSlices() > freeCompute) {
          continue;
        }
        int[] before = MigFragmentation.placeable(gpu.geometry(), used, freeCompute);
        for (int s : profile.starts()) {
          var placement = new MigPlacement(profile, s);
          if ((used & placement.mask()) != 0 || !allowed.test(gpu.gpu(), placement)) {
            continue;
          }
          int computeLeft = freeCompute - profile.computeSlices();
          int[] after =
              MigFragmentation.placeable(gpu.geometry(), used | placement.mask(), computeLeft);
          var loss = new int[before.length];
          for (int i = 0; i < loss.length; i++) {
            loss[i] = before[i] - after[i];
          }
          var rank = new Rank(gpu.isEmpty(), loss, computeLeft);
          if (bestRank == null || rank.betterThan(bestRank)) {
            best = new MigChoice.Place(gpu.gpu(), placement);
            bestRank = rank;
          }
        }
      }
      if (best != null) {
        return best;
      }
    }
    return MigFragmentation.refusal(fleet, request);
  }
}
