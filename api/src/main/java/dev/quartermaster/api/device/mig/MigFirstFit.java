package dev.quartermaster.api.device.mig;

import java.util.List;

/**
 * The naive dynamic placement: the first GPU, then the lowest start, where the profile fits. Here
 * only as the comparison that {@code qm bench mig} and the tests hold {@link LeastFragmenting}
 * against; not for use.
 */
public final class MigFirstFit implements MigPlacementRule {
  public static final MigFirstFit RULE = new MigFirstFit();

  private MigFirstFit() {}

  @Override
  public MigChoice choose(List<MigOccupancy> fleet, MigRequest request) {
    for (var gpu : fleet) {
      for (var profile : request.candidates(gpu.geometry())) {
        var where = gpu.creatable(profile);
        if (!where.isEmpty()) {
          return new MigChoice.Place(gpu.gpu(), where.getFirst());
        }
      }
    }
    return MigFragmentation.refusal(fleet, request);
  }
}
