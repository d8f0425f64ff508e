package dev.quartermaster.api.queue;

import java.util.Optional;

/**
 * Where a workload stands in its cohort's ledger: the admission entry's states ({@link
 * AdmissionTransitions} says which moves between them are made, by whom, and which the store
 * refuses).
 */
public enum AdmissionState {
  /** No entry and no nomination: it waits in its queue, or its entry was released. */
  Absent,
  /** It chose victims and waits for them to stop ({@link Nomination}); it uses no quota yet. */
  Nominated,
  /** Admitted ({@link Admitted}), not yet marked started: its start timeout applies. */
  Admitted,
  /** Admitted, and every task it needs ran under this admission: no start timeout any more. */
  Started,
  /** Admitted and chosen as a victim ({@link Admitted#eviction}): it counts until its tasks go. */
  Evicting;

  /** The state of a workload with {@code entry} and {@code nomination} in its ledger. */
  public static AdmissionState of(Optional<Admitted> entry, Optional<Nomination> nomination) {
    if (entry.isPresent()) {
      return of(entry.get());
    }
    return nomination.isPresent() ? Nominated : Absent;
  }

  /** The state an entry stands for. */
  public static AdmissionState of(Admitted entry) {
    if (entry.evicting()) {
      return Evicting;
    }
    return entry.started() ? Started : Admitted;
  }
}
