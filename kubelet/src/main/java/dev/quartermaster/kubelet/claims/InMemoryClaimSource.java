package dev.quartermaster.kubelet.claims;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Allocations set by hand, by claim uid: the tests' stand-in for the API server. A claim never set
 * (or removed) is Unavailable, as a deleted claim is.
 */
public final class InMemoryClaimSource implements ClaimSource {
  private final Map<String, Allocation> byUid = new ConcurrentHashMap<>();

  private record Allocation(KubeClaim claim, List<AllocatedDevice> devices) {}

  /** Records that {@code claim} is allocated {@code devices}. */
  public void allocate(KubeClaim claim, List<AllocatedDevice> devices) {
    byUid.put(claim.uid(), new Allocation(claim, List.copyOf(devices)));
  }

  /** Forgets {@code uid}, as if its claim were deleted. */
  public void delete(String uid) {
    byUid.remove(uid);
  }

  @Override
  public ClaimAllocation allocation(KubeClaim claim) {
    var found = byUid.get(claim.uid());
    if (found == null) {
      return new ClaimAllocation.Unavailable("resource claim " + claim + " not found");
    }
    if (!found.claim().namespace().equals(claim.namespace())
        || !found.claim().name().equals(claim.name())) {
      return new ClaimAllocation.Unavailable(
          "resource claim uid " + claim.uid() + " is " + found.claim() + ", not " + claim);
    }
    return new ClaimAllocation.Allocated(found.devices());
  }
}
