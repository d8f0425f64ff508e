package dev.quartermaster.kubelet.claims;

/**
 * Where a claim's allocated devices come from at prepare time. The kubelet names only the claim;
 * which devices it got is in the ResourceClaim's status.
 *
 * <p>The real source (not yet written; see the package doc) reads the ResourceClaim from the API
 * server; tests use {@link InMemoryClaimSource}. Called only for prepare: unprepare needs nothing
 * but the ledger, since the claim may already be gone.
 */
@FunctionalInterface
public interface ClaimSource {

  /** The allocation of {@code claim} now. Must not throw: a failure is {@code Unavailable}. */
  ClaimAllocation allocation(KubeClaim claim);
}
