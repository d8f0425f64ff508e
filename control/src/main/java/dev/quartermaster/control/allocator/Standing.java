package dev.quartermaster.control.allocator;

import java.util.Optional;

/** What a task's own key may do, given its gang: read once per decision of that key. */
sealed interface Standing {
  /**
   * Be placed on its own: it is no gang's member, or its gang holds devices already (this member is
   * elastic, or replaces one) — on nodes of {@code within}, if the gang requires a value.
   */
  record Alone(Optional<TopologyValue> within) implements Standing {}

  /** Wait for {@code gang}'s decision, which places it with the others. */
  record WithGang(AllocatorKey gang) implements Standing {}
}
