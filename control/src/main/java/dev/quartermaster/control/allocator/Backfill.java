package dev.quartermaster.control.allocator;

/**
 * Whether the gang at the head of the line reserves the devices it will get ({@link HeadOfLine}).
 * Reserving is what the allocator does; {@link #OFF} is here only so that {@code qm bench queues}
 * and the simulation can show, on the same control plane, how long a large gang starves without it
 * (issue 44).
 */
public enum Backfill {
  /**
   * The head reserves the devices that free up soonest; smaller jobs take them only if their
   * deadline ends before its start.
   */
  RESERVE,
  /** No reservation: any job takes any free device, and a large gang may wait for ever. */
  OFF
}
