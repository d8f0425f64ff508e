package dev.quartermaster.api.queue;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** A named priority ({@code spec.priority} of a workload); a workload that names none has 0. */
public record PriorityClass(ObjectMeta metadata, PriorityClassSpec spec, PriorityClassStatus status)
    implements ApiObject {
  public PriorityClass {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? new PriorityClassSpec(0, "") : spec;
    status = status == null ? PriorityClassStatus.EMPTY : status;
  }

  @Override
  public PriorityClass withMetadata(ObjectMeta m) {
    return new PriorityClass(m, spec, status);
  }

  @Override
  public PriorityClass withStatusOf(ApiObject other) {
    return new PriorityClass(metadata, spec, ((PriorityClass) other).status);
  }

  @Override
  public Kind<PriorityClass> kind() {
    return Kinds.PRIORITY_CLASS;
  }
}
