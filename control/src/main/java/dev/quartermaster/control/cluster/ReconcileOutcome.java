package dev.quartermaster.control.cluster;

import dev.quartermaster.core.queue.Result;
import java.util.Locale;

/** How a reconcile ended, as a metric label: the handler's {@link Result}, or a throw. */
public enum ReconcileOutcome {
  /** Handled; the key is forgotten. */
  DONE,
  /** Retried after the key's backoff. */
  REQUEUE,
  /** Handled for now; looked at again after a delay. */
  REQUEUE_AFTER,
  /** The handler threw; retried with backoff. */
  ERROR;

  static ReconcileOutcome of(Result result) {
    return switch (result) {
      case Result.Done _ -> DONE;
      case Result.Requeue _ -> REQUEUE;
      case Result.RequeueAfter _ -> REQUEUE_AFTER;
    };
  }

  /** The label value: lower case, as Prometheus label values usually are. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
