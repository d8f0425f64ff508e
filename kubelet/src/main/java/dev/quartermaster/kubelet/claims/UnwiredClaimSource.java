package dev.quartermaster.kubelet.claims;

/**
 * The source a plugin runs with until the Kubernetes API client exists: every prepare fails,
 * retryably, saying so (unprepare does not need a source and works).
 */
public final class UnwiredClaimSource implements ClaimSource {

  @Override
  public ClaimAllocation allocation(KubeClaim claim) {
    return new ClaimAllocation.Unavailable(
        "not yet: reading ResourceClaim "
            + claim
            + " needs the Kubernetes API, which this plugin does not talk to yet");
  }
}
