package dev.quartermaster.api.client;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;

/**
 * Whether a refused read-modify-write lost a race: the store answers 409 both when the object
 * changed since it was read (read again and retry) and when a rule refuses the change (a MIG mode
 * change while a claim holds the GPU: retrying that would loop for ever). Only the object's
 * revision tells them apart.
 */
public final class LostRace {
  private LostRace() {}

  /**
   * Whether {@code refused}, the answer to a write of {@code read}, is a race lost to another
   * writer: a conflict, and the object changed (or went) since it was read.
   */
  public static <T extends ApiObject> boolean lost(
      ApiClient api, Kind<T> kind, T read, ApiException refused) {
    return refused.is(Reason.Conflict)
        && api.get(kind, read.metadata().name())
            .map(now -> now.metadata().revision() != read.metadata().revision())
            .orElse(true);
  }
}
