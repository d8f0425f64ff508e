package dev.quartermaster.api.device.mig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one geometry's free positions can still hold, for {@link LeastFragmenting}.
 *
 * <p><b>Usable compute.</b> The most compute that instances created in a GPU's free positions could
 * take, capped by its free compute. Free compute beyond it is <em>stranded</em>: an H200 holding
 * {@code 3g.71gb} at 0 and at 4 has one compute slice free and no position to create anything in.
 *
 * <p><b>Cleanly placeable.</b> Per profile, how many of its placements could still be created
 * without stranding compute (capped by the free compute, as {@link MigFragmentation#placeable}). On
 * a 7-compute, 8-memory-slice GPU a profile that takes more memory slices than compute slices
 * ({@code 3g.71gb}, {@code 1g.35gb}) strands nothing only where it takes the one spare memory
 * slice, position 7 ({@code 3g} at 4, {@code 1g.35gb} at 6), so each GPU has at most one clean
 * place for them: counting every free start, as placeable counts do, hides that.
 */
final class MigPackings {
  private static final ConcurrentHashMap<MigGeometry, MigPackings> BY_GEOMETRY =
      new ConcurrentHashMap<>();

  /** Tabulate up to this many memory slices (every known geometry has 8); beyond, compute each. */
  private static final int TABLE_SLICES = 10;

  private final int allPositions;
  private final List<List<MigPlacement>> startingAt;
  private final List<MigProfile> lossOrder;

  private final int computeStates;

  /** Most compute per free-position mask; filled whole before any reader sees it. */
  private final int[] mostCompute;

  /** {@link #cleanlyPlaceable} per used mask and free compute; filled whole likewise. */
  private final int[][] clean;

  private MigPackings(MigGeometry geometry) {
    allPositions = (1 << geometry.memorySlices()) - 1;
    startingAt = new ArrayList<>();
    for (int i = 0; i < geometry.memorySlices(); i++) {
      startingAt.add(new ArrayList<>());
    }
    geometry.placements().forEach(p -> startingAt.get(p.start()).add(p));
    computeStates = geometry.computeSlices() + 1;
    int masks = geometry.memorySlices() <= TABLE_SLICES ? 1 << geometry.memorySlices() : 0;
    mostCompute = new int[masks];
    for (int free = 0; free < masks; free++) { // a mask's subsets are smaller: filled before it
      mostCompute[free] = most(free);
    }
    lossOrder = lossOrder(geometry); // reads mostCompute
    clean = new int[masks * computeStates][];
    for (int used = 0; used < masks; used++) {
      for (int free = 0; free < computeStates; free++) {
        clean[used * computeStates + free] = countClean(used, free);
      }
    }
  }

  static MigPackings of(MigGeometry geometry) {
    return BY_GEOMETRY.computeIfAbsent(geometry, MigPackings::new);
  }

  /**
   * The profiles in the order their losses are weighed: scarcest first — fewest clean places on an
   * empty GPU — and among equally scarce the largest first. On an H200: {@code 7g}, {@code 4g},
   * {@code 3g} (clean at 4 only), {@code 1g.35gb} (at 6 only), then {@code 2g} (three) and {@code
   * 1g.18gb}; largest-first alone weighs the {@code 2g} before the scarcer {@code 1g.35gb}.
   */
  private List<MigProfile> lossOrder(MigGeometry g) {
    var largest = g.largestFirst();
    var cleanOnEmpty = new HashMap<MigProfile, Integer>();
    for (var p : largest) {
      int count = 0;
      int span = (1 << p.memorySlices()) - 1;
      for (int s : p.starts()) {
        count +=
            usable(span << s, g.computeSlices() - p.computeSlices()) + p.computeSlices()
                    == usable(0, g.computeSlices())
                ? 1
                : 0;
      }
      cleanOnEmpty.put(p, count);
    }
    return largest.stream()
        .sorted(Comparator.comparingInt(cleanOnEmpty::get)) // stable: largest first
        .toList();
  }

  List<MigProfile> lossOrder() {
    return lossOrder;
  }

  /** The most compute instances created in the positions not in {@code usedMask} could take. */
  int usable(int usedMask, int freeCompute) {
    return Math.min(freeCompute, most(~usedMask & allPositions));
  }

  /**
   * {@link #lossOrder}'s profiles: how many of each could be created without stranding compute.
   * Shared: the caller must not change it.
   */
  int[] cleanlyPlaceable(int usedMask, int freeCompute) {
    int key = usedMask * computeStates + freeCompute;
    return key < clean.length && clean[key] != null
        ? clean[key]
        : countClean(usedMask, freeCompute);
  }

  private int[] countClean(int usedMask, int freeCompute) {
    int before = usable(usedMask, freeCompute);
    var out = new int[lossOrder.size()];
    for (int k = 0; k < out.length; k++) {
      var p = lossOrder.get(k);
      if (p.computeSlices() > freeCompute) {
        continue;
      }
      int count = 0;
      int span = (1 << p.memorySlices()) - 1;
      for (int s : p.starts()) {
        int mask = span << s;
        if ((usedMask & mask) == 0
            && usable(usedMask | mask, freeCompute - p.computeSlices())
                == before - p.computeSlices()) {
          count++;
        }
      }
      out[k] = Math.min(count, freeCompute / p.computeSlices());
    }
    return out;
  }

  /** Most compute in the free positions {@code free}: the lowest one left empty, or a start. */
  private int most(int free) {
    if (free == 0) {
      return 0;
    }
    if (free < mostCompute.length && mostCompute[free] != 0) {
      return mostCompute[free];
    }
    int lowest = Integer.numberOfTrailingZeros(free);
    int best = most(free & ~(1 << lowest));
    for (var p : startingAt.get(lowest)) {
      if ((p.mask() & ~free) == 0) {
        best = Math.max(best, p.profile().computeSlices() + most(free & ~p.mask()));
      }
    }
    return best;
  }
}
