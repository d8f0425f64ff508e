package dev.quartermaster.control.cluster;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.queue.Result;
import java.util.function.Function;

/**
 * A reconcile that decided on a cache the store has since moved past: its write lost a
 * compare-and-set ({@code Conflict}), found its object gone ({@code NotFound}), or created what is
 * there already ({@code AlreadyExists}: a cache still filling after a restart, say, without the
 * cohort's quota ledger the last run made). None is an error, nor worth a warning; the key is
 * simply reconciled again, on a fresher cache. Anything else propagates.
 */
public final class StaleWrites {
  private StaleWrites() {}

  /** {@code sync}, with a lost race requeued. */
  public static Function<String, Result> requeued(Function<String, Result> sync) {
    return key -> {
      try {
        return sync.apply(key);
      } catch (ApiException e) {
        if (e.is(Reason.Conflict) || e.is(Reason.NotFound) || e.is(Reason.AlreadyExists)) {
          return Result.requeue();
        }
        throw e;
      }
    };
  }
}
