package dev.quartermaster.api.allocation;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import java.util.List;

/**
 * One claim of a reserved member: the claim (name and uid, as a record entry names it) and the
 * devices it is to be allocated, per request, exactly as its allocation will name them.
 */
public record ReservedClaim(String claim, String uid, List<AllocatedDevice> devices) {
  public ReservedClaim {
    claim = claim == null ? "" : claim;
    uid = uid == null ? "" : uid;
    devices = devices == null ? List.of() : List.copyOf(devices);
  }

  /** The holder a record entry for one of these devices names. */
  public DeviceHolder holder() {
    return new DeviceHolder(claim, uid);
  }
}
