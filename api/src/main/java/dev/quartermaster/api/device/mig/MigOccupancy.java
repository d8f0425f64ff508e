package dev.quartermaster.api.device.mig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One MIG GPU as it stands: its instances and who holds them. A snapshot: the placement choice and
 * {@code describe node} read it; nothing here changes a GPU.
 *
 * @param gpu the GPU's device name on its node, e.g. {@code gpu-0}
 * @param instances its instances, by start; no two overlap and together they take at most its
 *     compute slices
 */
public record MigOccupancy(String gpu, MigGeometry geometry, List<MigInstance> instances) {
  public MigOccupancy {
    instances =
        instances.stream().sorted(Comparator.comparingInt(i -> i.placement().start())).toList();
    int mask = 0;
    int compute = 0;
    for (var i : instances) {
      if ((mask & i.placement().mask()) != 0) {
        throw new IllegalArgumentException(gpu + ": " + i.placement() + " overlaps another");
      }
      mask |= i.placement().mask();
      compute += i.placement().profile().computeSlices();
    }
    if (compute > geometry.computeSlices()) {
      throw new IllegalArgumentException(gpu + ": instances take more compute than there is");
    }
  }

  /** A GPU in MIG mode with no instance. */
  public static MigOccupancy empty(String gpu, MigGeometry geometry) {
    return new MigOccupancy(gpu, geometry, List.of());
  }

  /** The memory-slice positions instances occupy, as bits. */
  public int usedMask() {
    int mask = 0;
    for (var i : instances) {
      mask |= i.placement().mask();
    }
    return mask;
  }

  public int freeCompute() {
    return geometry.computeSlices()
        - instances.stream().mapToInt(i -> i.placement().profile().computeSlices()).sum();
  }

  public int freeMemorySlices() {
    return geometry.memorySlices() - Integer.bitCount(usedMask());
  }

  /** No instance at all: the whole GPU can still be had. */
  public boolean isEmpty() {
    return instances.isEmpty();
  }

  /** Whether {@code placement} can be created now: its positions free, its compute left. */
  public boolean canCreate(MigPlacement placement) {
    return (usedMask() & placement.mask()) == 0
        && placement.profile().computeSlices() <= freeCompute();
  }

  /** Where {@code profile} can be created now, by start. */
  public List<MigPlacement> creatable(MigProfile profile) {
    var out = new ArrayList<MigPlacement>();
    for (int s : profile.starts()) {
      var p = new MigPlacement(profile, s);
      if (canCreate(p)) {
        out.add(p);
      }
    }
    return out;
  }

  /** The instance at {@code placement}, if it exists. */
  public Optional<MigInstance> at(MigPlacement placement) {
    return instances.stream().filter(i -> i.placement().equals(placement)).findFirst();
  }

  /** This GPU with {@code placement} created and held by {@code holder}. */
  public MigOccupancy with(MigPlacement placement, String holder) {
    var next = new ArrayList<>(instances);
    next.add(MigInstance.held(placement, holder));
    return new MigOccupancy(gpu, geometry, next);
  }

  /** This GPU with the instance at {@code placement} gone (destroyed). */
  public MigOccupancy without(MigPlacement placement) {
    return new MigOccupancy(
        gpu, geometry, instances.stream().filter(i -> !i.placement().equals(placement)).toList());
  }

  /**
   * The positions left to right, as {@code describe node} draws them: an instance as {@code
   * [3g.71gb: claim/a]} (or {@code free} when none holds it), each position no instance occupies as
   * {@code [·]}.
   */
  public String render() {
    var sb = new StringBuilder();
    int pos = 0;
    for (var i : instances) {
      for (; pos < i.placement().start(); pos++) {
        sb.append("[·]");
      }
      sb.append('[')
          .append(i.placement().profile().label())
          .append(": ")
          .append(i.heldBy().orElse("free"))
          .append(']');
      pos += i.placement().profile().memorySlices();
    }
    for (; pos < geometry.memorySlices(); pos++) {
      sb.append("[·]");
    }
    return sb.toString();
  }
}
