package dev.quartermaster.api.queue;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** Where workloads wait to be admitted against a quota (see the package doc). */
public record Queue(ObjectMeta metadata, QueueSpec spec, QueueStatus status) implements ApiObject {
  /** The queue of workloads that name none. */
  public static final String DEFAULT = "default";

  public Queue {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? QueueSpec.UNLIMITED : spec;
    status = status == null ? QueueStatus.EMPTY : status;
  }

  @Override
  public Queue withMetadata(ObjectMeta m) {
    return new Queue(m, spec, status);
  }

  @Override
  public Queue withStatusOf(ApiObject other) {
    return new Queue(metadata, spec, ((Queue) other).status);
  }

  public Queue withStatus(QueueStatus s) {
    return new Queue(metadata, spec, s);
  }

  /** The cohort this queue lends to and borrows from. */
  public String cohort() {
    return spec.cohortOf(metadata.name());
  }

  @Override
  public Kind<Queue> kind() {
    return Kinds.QUEUE;
  }
}
