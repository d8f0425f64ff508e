package dev.quartermaster.control.allocator;

import java.util.Objects;

/**
 * The allocator's choices that the benches and the simulation's naive variants change: how gangs
 * are packed, whether the head of the line reserves, and what a decision's devices are checked
 * against when written. {@link #DEFAULT} is what the allocator does.
 */
public record AllocatorPolicy(Packing packing, Backfill backfill, SliceCheck sliceCheck) {
  public static final AllocatorPolicy DEFAULT =
      new AllocatorPolicy(Packing.BEST_FIT, Backfill.RESERVE, SliceCheck.LIVE);

  public AllocatorPolicy {
    Objects.requireNonNull(packing, "packing");
    Objects.requireNonNull(backfill, "backfill");
    Objects.requireNonNull(sliceCheck, "sliceCheck");
  }
}
