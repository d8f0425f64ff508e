package dev.quartermaster.api.domain;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/** A set of nodes that share an interconnect domain, with a helper daemon per member node. */
public record ComputeDomain(ObjectMeta metadata, ComputeDomainSpec spec, ComputeDomainStatus status)
    implements ApiObject {
  /**
   * Every domain is stored with this finalizer; the compute domain controller removes it once no
   * claim names the domain, so a delete waits for the domain's users instead of pulling it from
   * under them.
   */
  public static final String IN_USE_FINALIZER = "computedomains.quartermaster.dev/in-use";

  public ComputeDomain {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? ComputeDomainSpec.EMPTY : spec;
    status = status == null ? ComputeDomainStatus.EMPTY : status;
  }

  @Override
  public ComputeDomain withMetadata(ObjectMeta m) {
    return new ComputeDomain(m, spec, status);
  }

  @Override
  public ComputeDomain withStatusOf(ApiObject other) {
    return new ComputeDomain(metadata, spec, ((ComputeDomain) other).status);
  }

  public ComputeDomain withSpec(ComputeDomainSpec s) {
    return new ComputeDomain(metadata, s, status);
  }

  public ComputeDomain withStatus(ComputeDomainStatus s) {
    return new ComputeDomain(metadata, spec, s);
  }

  @Override
  public Kind<ComputeDomain> kind() {
    return Kinds.COMPUTE_DOMAIN;
  }
}
