package dev.quartermaster.api.claim;

import dev.quartermaster.api.meta.Condition;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * @param allocation the node and devices the allocator bound this claim to
 * @param reservedFor the tasks using the claim
 * @param prepare per node, the agent's prepare state for this claim
 */
public record ResourceClaimStatus(
    Optional<Allocation> allocation,
    List<String> reservedFor,
    Map<String, PrepareState> prepare,
    List<Condition> conditions) {
  public static final ResourceClaimStatus EMPTY =
      new ResourceClaimStatus(Optional.empty(), List.of(), Map.of(), List.of());

  public ResourceClaimStatus {
    allocation = allocation == null ? Optional.empty() : allocation;
    reservedFor = reservedFor == null ? List.of() : List.copyOf(reservedFor);
    prepare = prepare == null ? Map.of() : Map.copyOf(prepare);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  public ResourceClaimStatus withAllocation(Allocation a) {
    return new ResourceClaimStatus(Optional.of(a), reservedFor, prepare, conditions);
  }
}
