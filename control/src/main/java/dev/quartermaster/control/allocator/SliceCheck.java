package dev.quartermaster.control.allocator;

/**
 * Which view of a node's DeviceSlice a decision is checked against when it is written ({@link
 * AllocationWrite#plan}), beside the node and its record, which are always read live. The index
 * decides on cached slices, and the informers of different kinds do not keep step: a node seen
 * schedulable again may still show the slice from before its agent restarted, offering a device
 * whose node has gone since. Allocated, such a device can never be prepared, and its task waits in
 * {@code Preparing} holding the rest of its gang's devices for good.
 */
public enum SliceCheck {
  /** Every device a decision adds to a record must be in the node's slices as read live. */
  LIVE,
  /**
   * The cached slices are trusted: the behaviour before campaign seed 979, kept for the
   * simulation's naive variant.
   */
  CACHED
}
