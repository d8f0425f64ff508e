package dev.quartermaster.api.device.mig;

import java.util.Comparator;
import java.util.List;

/** What a claim asks of a MIG GPU: a profile by name, or at least some capacity. */
public sealed interface MigRequest {
  /** Any profile, the smallest first: what a device class's matching slices are ranked by. */
  MigRequest ANY = new AtLeast(1, 1);

  /** The profiles of {@code geometry} that would serve it, the one to prefer first. */
  List<MigProfile> candidates(MigGeometry geometry);

  /** A profile by its NVML label ({@code mig-3g.71gb} asks for {@code 3g.71gb}). */
  record Profile(String label) implements MigRequest {
    @Override
    public List<MigProfile> candidates(MigGeometry geometry) {
      return geometry.profile(label).stream().toList();
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /**
   * At least this many compute and memory slices, by attributes: served by the smallest profile
   * that gives it (least compute, then least memory), a larger one only where none smaller fits.
   */
  record AtLeast(int computeSlices, int memorySlices) implements MigRequest {
    @Override
    public List<MigProfile> candidates(MigGeometry geometry) {
      return geometry.profiles().stream()
          .filter(p -> p.atLeast(computeSlices, memorySlices))
          .sorted(
              Comparator.comparingInt(MigProfile::computeSlices)
                  .thenComparingInt(MigProfile::memorySlices))
          .toList();
    }

    @Override
    public String toString() {
      return "at least " + computeSlices + " compute and " + memorySlices + " memory slices";
    }
  }
}
