package dev.quartermaster.api.claim;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * A request for devices; the allocator binds it to devices on one node, the node's agent prepares
 * it.
 */
public record ResourceClaim(ObjectMeta metadata, ResourceClaimSpec spec, ResourceClaimStatus status)
    implements ApiObject {
  public ResourceClaim {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? ResourceClaimSpec.EMPTY : spec;
    status = status == null ? ResourceClaimStatus.EMPTY : status;
  }

  /** Whether this claim's allocation names {@code device} of {@code node}. */
  public boolean allocates(String node, String device) {
    return status.allocation().filter(a -> a.names(node, device)).isPresent();
  }

  @Override
  public ResourceClaim withMetadata(ObjectMeta m) {
    return new ResourceClaim(m, spec, status);
  }

  @Override
  public ResourceClaim withStatusOf(ApiObject other) {
    return new ResourceClaim(metadata, spec, ((ResourceClaim) other).status);
  }

  public ResourceClaim withSpec(ResourceClaimSpec s) {
    return new ResourceClaim(metadata, s, status);
  }

  public ResourceClaim withStatus(ResourceClaimStatus s) {
    return new ResourceClaim(metadata, spec, s);
  }

  @Override
  public Kind<ResourceClaim> kind() {
    return Kinds.RESOURCE_CLAIM;
  }
}
