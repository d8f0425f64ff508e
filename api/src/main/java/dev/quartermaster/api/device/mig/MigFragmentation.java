package dev.quartermaster.api.device.mig;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The fragmentation measure, and when a GPU is fragmented.
 *
 * <p><b>Placeable counts.</b> For a GPU as it stands, for each profile largest first ({@link
 * MigGeometry#largestFirst}): how many instances of it could still be created side by side — its
 * free start positions (one profile's positions never overlap each other), capped by the free
 * compute. A placement's <em>loss</em> is that vector before minus after; losses compare
 * lexicographically, so losing one {@code 3g} weighs more than losing every {@code 1g}. The least
 * fragmenting placement is the one of least loss: it keeps the largest profiles possible.
 *
 * <p><b>Fragmented.</b> A GPU is fragmented for a profile when its free compute and free memory
 * slices are each at least the profile's, yet no start position of the profile is free: the
 * capacity is there, in the wrong places (dra-driver-nvidia-gpu #933).
 */
public final class MigFragmentation {
  private MigFragmentation() {}

  /** The placeable counts of {@code gpu}, in {@link MigGeometry#largestFirst} order. */
  public static int[] placeable(MigOccupancy gpu) {
    return placeable(gpu.geometry(), gpu.usedMask(), gpu.freeCompute());
  }

  static int[] placeable(MigGeometry geometry, int usedMask, int freeCompute) {
    var profiles = geometry.largestFirst();
    var out = new int[profiles.size()];
    for (int k = 0; k < out.length; k++) {
      var p = profiles.get(k);
      int span = ((1 << p.memorySlices()) - 1);
      int free = 0;
      for (int s : p.starts()) {
        if ((usedMask & (span << s)) == 0) {
          free++;
        }
      }
      out[k] = Math.min(free, freeCompute / p.computeSlices());
    }
    return out;
  }

  /** The profiles {@code gpu} has the capacity for but no free position for, largest first. */
  public static List<MigProfile> blocked(MigOccupancy gpu) {
    var out = new ArrayList<MigProfile>();
    for (var p : gpu.geometry().largestFirst()) {
      if (hasRoomFor(gpu, p) && gpu.creatable(p).isEmpty()) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * What an operator reads when {@code gpu} is fragmented: "gpu-3 is fragmented: 4 compute and 5
   * memory slices free, yet no 4g.71gb or 3g.71gb fits (positions 0, 1, 5 taken)".
   */
  public static Optional<String> describe(MigOccupancy gpu) {
    var blocked = blocked(gpu);
    if (blocked.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        gpu.gpu()
            + " is fragmented: "
            + gpu.freeCompute()
            + " compute and "
            + gpu.freeMemorySlices()
            + " memory slices free, yet no "
            + blocked.stream().map(MigProfile::label).collect(Collectors.joining(" or "))
            + " fits (positions "
            + taken(gpu)
            + " taken)");
  }

  private static boolean hasRoomFor(MigOccupancy gpu, MigProfile p) {
    return gpu.freeCompute() >= p.computeSlices() && gpu.freeMemorySlices() >= p.memorySlices();
  }

  private static String taken(MigOccupancy gpu) {
    var out = new ArrayList<String>();
    int mask = gpu.usedMask();
    for (int i = 0; i < gpu.geometry().memorySlices(); i++) {
      if ((mask & (1 << i)) != 0) {
        out.add(Integer.toString(i));
      }
    }
    return String.join(", ", out);
  }

  /**
   * Why no GPU of {@code fleet} can take {@code request}, for a rule that found no placement:
   * fragmented when some GPU has the room of the smallest profile that would serve, else no
   * capacity (or no such profile).
   */
  public static MigChoice.Refused refusal(List<MigOccupancy> fleet, MigRequest request) {
    boolean offered = false;
    for (var gpu : fleet) {
      var candidates = request.candidates(gpu.geometry());
      offered |= !candidates.isEmpty();
      for (var p : candidates) {
        if (hasRoomFor(gpu, p)) {
          return new MigChoice.Refused(
              MigChoice.Refusal.FRAGMENTED,
              gpu.gpu()
                  + " has "
                  + gpu.freeCompute()
                  + " compute and "
                  + gpu.freeMemorySlices()
                  + " memory slices free, but "
                  + p.label()
                  + " starts only at "
                  + p.placementText()
                  + " and positions "
                  + taken(gpu)
                  + " are taken");
        }
      }
    }
    if (!offered) {
      return new MigChoice.Refused(
          MigChoice.Refusal.NO_SUCH_PROFILE, "no MIG GPU offers " + request);
    }
    return new MigChoice.Refused(
        MigChoice.Refusal.NO_CAPACITY, "no MIG GPU has room for " + request);
  }
}
