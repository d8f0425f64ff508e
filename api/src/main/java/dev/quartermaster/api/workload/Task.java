package dev.quartermaster.api.workload;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** One worker process on one node, with its claims and volumes. */
public record Task(ObjectMeta metadata, TaskSpec spec, TaskStatus status) implements ApiObject {
  public Task {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? TaskSpec.EMPTY : spec;
    status = status == null ? TaskStatus.EMPTY : status;
  }

  @Override
  public Task withMetadata(ObjectMeta m) {
    return new Task(m, spec, status);
  }

  @Override
  public Task withStatusOf(ApiObject other) {
    return new Task(metadata, spec, ((Task) other).status);
  }

  public Task withSpec(TaskSpec s) {
    return new Task(metadata, s, status);
  }

  public Task withStatus(TaskStatus s) {
    return new Task(metadata, spec, s);
  }

  @Override
  public Kind<Task> kind() {
    return Kinds.TASK;
  }
}
