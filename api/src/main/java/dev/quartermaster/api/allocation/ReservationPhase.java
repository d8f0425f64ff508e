package dev.quartermaster.api.allocation;

/** How far a gang reservation has come (see {@link GangReservation}). */
public enum ReservationPhase {
  /**
   * Written: from its commit no other claim can be given its devices, but a record write that raced
   * its commit may still hold one of them. Nothing of the gang is written while it is proposed.
   */
  Proposed,
  /**
   * Checked by the store against every node's record after it was proposed: every device is the
   * gang's. The gang holds its devices from this write on; its members' writes follow.
   */
  Held
}
