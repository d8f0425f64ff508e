package dev.quartermaster.api.claim;

import java.util.List;
import java.util.Optional;

/**
 * @param requests what devices are wanted; all of a claim's devices are on one node
 * @param computeDomain the compute domain the claim's node must join while the claim is prepared
 */
public record ResourceClaimSpec(List<DeviceRequest> requests, Optional<String> computeDomain) {
  public static final ResourceClaimSpec EMPTY = new ResourceClaimSpec(List.of(), Optional.empty());

  public ResourceClaimSpec {
    requests = requests == null ? List.of() : List.copyOf(requests);
    computeDomain = computeDomain == null ? Optional.empty() : computeDomain;
  }
}
