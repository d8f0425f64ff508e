package dev.quartermaster.api.workload;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * Groups of identical workers (like a RayCluster's worker groups); the workload controller keeps
 * each group at its replicas.
 */
public record Workload(ObjectMeta metadata, WorkloadSpec spec, WorkloadStatus status)
    implements ApiObject {
  public Workload {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? WorkloadSpec.EMPTY : spec;
    status = status == null ? WorkloadStatus.EMPTY : status;
  }

  @Override
  public Workload withMetadata(ObjectMeta m) {
    return new Workload(m, spec, status);
  }

  @Override
  public Workload withStatusOf(ApiObject other) {
    return new Workload(metadata, spec, ((Workload) other).status);
  }

  public Workload withSpec(WorkloadSpec s) {
    return new Workload(metadata, s, status);
  }

  public Workload withStatus(WorkloadStatus s) {
    return new Workload(metadata, spec, s);
  }

  @Override
  public Kind<Workload> kind() {
    return Kinds.WORKLOAD;
  }
}
