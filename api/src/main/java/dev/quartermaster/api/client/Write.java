package dev.quartermaster.api.client;

import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import java.util.List;
import java.util.Objects;

/**
 * One write of an {@link ApiClient#commit}: what {@link ApiClient#create}, {@link ApiClient#update}
 * or {@link ApiClient#updateStatus} would do with {@link #object()} alone, with the same checks.
 */
public sealed interface Write {
  ApiObject object();

  /**
   * This write alone, through {@code api}'s own call for it: a batch of one where there is no
   * batching.
   */
  default ApiObject applyAlone(ApiClient api) {
    return switch (this) {
      case Create c -> api.create(c.object());
      case Update u -> api.update(u.object());
      case UpdateStatus u -> api.updateStatus(u.object());
      case UpdateWithStatus u ->
          throw ApiException.badRequest(
              "a write of "
                  + u.object().ref()
                  + "'s spec and "
                  + "status together has no request of its own: commit it in-process, or update and update the status",
              List.of());
    };
  }

  /** {@link ApiClient#create}: the name must be free. */
  record Create(ApiObject object) implements Write {
    public Create {
      Objects.requireNonNull(object, "object");
    }
  }

  /** {@link ApiClient#update}: metadata and spec, compare-and-set on {@code metadata.revision}. */
  record Update(ApiObject object) implements Write {
    public Update {
      Objects.requireNonNull(object, "object");
    }
  }

  /**
   * {@link ApiClient#updateStatus}: the status only, compare-and-set on {@code metadata.revision}.
   */
  record UpdateStatus(ApiObject object) implements Write {
    public UpdateStatus {
      Objects.requireNonNull(object, "object");
    }
  }

  /**
   * {@link Update} and {@link UpdateStatus} as one write: metadata, spec and status, one
   * compare-and-set, judged by both calls' rules. For one decision that changes both (the allocator
   * pins a task to the node of its claims and schedules it there); in-process only.
   */
  record UpdateWithStatus(ApiObject object) implements Write {
    public UpdateWithStatus {
      Objects.requireNonNull(object, "object");
    }
  }
}
