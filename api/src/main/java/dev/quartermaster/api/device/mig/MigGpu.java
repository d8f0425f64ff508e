package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.node.MigMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One GPU of a node in MIG terms, as an operator reads it: the mode wished ({@code spec.mig}), the
 * mode its slice shows, and what stands on it. A snapshot built by {@link NodeMigGpus}.
 *
 * @param wished the operator's wish; empty: used whole
 * @param published the mode its node's slice shows: {@code Dynamic} when it publishes overlapping
 *     possible instances, {@code Static} when it publishes a layout of instances that exist; empty
 *     when it publishes the GPU whole (or not at all)
 * @param occupancy what stands on it, when published in MIG mode: under Dynamic the held slices,
 *     under Static every instance, held or free
 * @param problems what could not be drawn (a slice overlapping a held one: I1 broken), in words
 */
public record MigGpu(
    String gpu,
    Optional<MigMode> wished,
    Optional<MigMode> published,
    Optional<MigOccupancy> occupancy,
    List<String> problems) {

  /** Held and free slices of one profile. */
  public record SliceCount(int held, int free) {}

  /**
   * One box of the GPU's picture, left to right: an instance over its memory positions, or one
   * position no instance takes (no instance).
   */
  public record Cell(int start, int span, Optional<MigInstance> instance) {}

  public MigGpu {
    problems = List.copyOf(problems);
  }

  /** Compute slices (sevenths) a claim could still get: a free instance's, or room to create. */
  public int freeCompute() {
    return occupancy
        .map(
            o ->
                published.orElseThrow() == MigMode.Static
                    ? o.instances().stream()
                        .filter(i -> !i.isHeld())
                        .mapToInt(i -> i.placement().profile().computeSlices())
                        .sum()
                    : o.freeCompute())
        .orElse(0);
  }

  /** Its positions as {@link MigOccupancy#render} draws them, as boxes; none when used whole. */
  public List<Cell> cells() {
    if (occupancy.isEmpty()) {
      return List.of();
    }
    var o = occupancy.get();
    var out = new java.util.ArrayList<Cell>();
    int pos = 0;
    for (var i : o.instances()) {
      for (; pos < i.placement().start(); pos++) {
        out.add(new Cell(pos, 1, Optional.empty()));
      }
      out.add(new Cell(pos, i.placement().profile().memorySlices(), Optional.of(i)));
      pos += i.placement().profile().memorySlices();
    }
    for (; pos < o.geometry().memorySlices(); pos++) {
      out.add(new Cell(pos, 1, Optional.empty()));
    }
    return out;
  }

  public int totalCompute() {
    return occupancy.map(o -> o.geometry().computeSlices()).orElse(0);
  }

  /**
   * Per profile (largest first): slices held, and slices free — under Static the free instances,
   * under Dynamic how many could still be created side by side now.
   */
  public Map<String, SliceCount> slices() {
    var out = new LinkedHashMap<String, SliceCount>();
    occupancy.ifPresent(
        o -> {
          var profiles = o.geometry().largestFirst();
          var placeable = MigFragmentation.placeable(o);
          for (int k = 0; k < profiles.size(); k++) {
            var p = profiles.get(k);
            int held = count(o, p, true);
            int free =
                published.orElseThrow() == MigMode.Static ? count(o, p, false) : placeable[k];
            out.put(p.label(), new SliceCount(held, free));
          }
        });
    return out;
  }

  private static int count(MigOccupancy o, MigProfile p, boolean held) {
    return (int)
        o.instances().stream()
            .filter(i -> i.isHeld() == held && i.placement().profile().sameShape(p))
            .count();
  }

  /**
   * Why larger profiles no longer fit though the room is there (dynamic MIG only: a static layout
   * is what the operator made).
   */
  public Optional<String> fragmentation() {
    return occupancy
        .filter(o -> published.orElseThrow() == MigMode.Dynamic)
        .flatMap(MigFragmentation::describe);
  }

  /** "Dynamic", or wish and state when they differ: "Dynamic wished; whole now (…)". */
  public String modeText() {
    var now = published.map(MigMode::name).orElse("whole");
    var want = wished.map(MigMode::name).orElse("whole");
    if (now.equals(want)) {
      return now;
    }
    return want
        + " wished; "
        + now
        + " now (its agent switches the GPU once nothing holds it or a slice of it)";
  }
}
