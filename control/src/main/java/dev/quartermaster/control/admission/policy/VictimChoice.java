package dev.quartermaster.control.admission.policy;

import dev.quartermaster.api.queue.Admitted;
import java.util.Comparator;
import java.util.Map;

/**
 * Which admitted workloads go first when some must make room — for a preemptor, or for a queue over
 * what it may hold: the victim part of the policy seam, beside {@link AdmissionOrder}. Who may be a
 * victim at all is not a policy but a promise ({@code RightfulEviction}); this chooses among the
 * rightful, and each chooser gives back, the last taken first, any victim it turns out not to need.
 */
public interface VictimChoice {
  /** Candidates (name → entry) in the order they are taken, the first taken first. */
  Comparator<Map.Entry<String, Admitted>> order();
}
