package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;
import java.util.Objects;

/**
 * One write of an {@link ApiClient#commit}: what {@link ApiClient#create}, {@link ApiClient#update}
 * or {@link ApiClient#updateStatus} would do with {@link #object()} alone, with the same checks.
 */
public sealed interface Write {
  ApiObject object();

  /** This write alone, through {@code api}'s own call for it: a batch of one where there is no batching. */
  default ApiObject applyAlone(ApiClient api) {
    return switch (this) {
      case Create c -> api.create(c.object());
      case Update u -> api.update(u.object());
      case UpdateStatus u -> api.updateStatus(u.object());
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

  /** {@link ApiClient#updateStatus}: the status only, compare-and-set on {@code metadata.revision}. */
  record UpdateStatus(ApiObject object) implements Write {
    public UpdateStatus {
      Objects.requireNonNull(object, "object");
    }
  }
}
