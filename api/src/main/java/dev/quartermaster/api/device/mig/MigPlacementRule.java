package dev.quartermaster.api.device.mig;

import java.util.List;

/**
 * A pure choice of where a MIG instance goes: over a snapshot of the fleet's MIG GPUs, in the order
 * given (ties go to the earlier GPU), the same answer for the same input.
 */
@FunctionalInterface
public interface MigPlacementRule {
  MigChoice choose(List<MigOccupancy> fleet, MigRequest request);
}
