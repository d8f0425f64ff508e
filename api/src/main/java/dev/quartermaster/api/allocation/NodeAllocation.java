package dev.quartermaster.api.allocation;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;

/**
 * The allocation record of one node (same name as the node): which claim holds which of its
 * devices. Only the allocator writes it — never an agent's heartbeat or an operator's apply of the
 * node — and the store refuses any write, by anyone, that would let one device be held by two live
 * claims (see {@code ObjectRegistry}). A separate object, so deleting and re-creating the {@code
 * Node} does not lose it.
 */
public record NodeAllocation(
    ObjectMeta metadata, NodeAllocationSpec spec, NodeAllocationStatus status)
    implements ApiObject {
  public NodeAllocation {
    metadata = metadata == null ? ObjectMeta.named("") : metadata;
    spec = spec == null ? NodeAllocationSpec.EMPTY : spec;
    status = status == null ? NodeAllocationStatus.EMPTY : status;
  }

  @Override
  public NodeAllocation withMetadata(ObjectMeta m) {
    return new NodeAllocation(m, spec, status);
  }

  @Override
  public NodeAllocation withStatusOf(ApiObject other) {
    return new NodeAllocation(metadata, spec, ((NodeAllocation) other).status);
  }

  public NodeAllocation withSpec(NodeAllocationSpec s) {
    return new NodeAllocation(metadata, s, status);
  }

  @Override
  public Kind<NodeAllocation> kind() {
    return Kinds.NODE_ALLOCATION;
  }
}
