package dev.quartermaster.control.cluster;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.core.queue.Result;
import java.util.function.Function;

/**
 * A reconcile that decided on a cache the store has since moved past: its write lost a
 * compare-and-set ({@code Conflict}) or found its object gone ({@code NotFound}). Neither is an
 * error; the key is simply reconciled again, on a fresher cache. Anything else propagates.
 */
public final class StaleWrites {
  private StaleWrites() {}

  /** {@code sync}, with a lost race requeued. */
  public static Function<String, Result> requeued(Function<String, Result> sync) {
    return key -> {
      try {
        return sync.apply(key);
      } catch (ApiException e) {
        if (e.is(Reason.Conflict) || e.is(Reason.NotFound)) {
          return Result.requeue();
        }
        throw e;
      }
    };
  }
}
