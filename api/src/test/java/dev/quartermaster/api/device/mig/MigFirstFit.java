package dev.quartermaster.api.device.mig;

import java.util.List;

/**
 * The naive dynamic placement: the first GPU, then the lowest start, where the profile fits. Test
 * code (shipped in api's test-jar): the naive variant that the tests and {@code qm bench mig} hold
 * {@link LeastFragmenting} against.
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
