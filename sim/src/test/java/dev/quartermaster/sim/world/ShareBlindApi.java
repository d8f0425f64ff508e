package dev.quartermaster.sim.world;

import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.meta.ApiObject;
import java.util.HashMap;

/**
 * The naive MPS allocator (the device plugin's way with replicas, and KAI's fractions that enforce
 * nothing): the real allocator reading the cluster through this view sees no MPS share held, so
 * each new share is judged against an idle GPU and shares are handed out past its compute and
 * memory. Writes go to the real API unchanged.
 */
final class ShareBlindApi extends RewrittenReads {
  ShareBlindApi(ApiClient api) {
    super(api);
  }

  @Override
  @SuppressWarnings("unchecked")
  <T extends ApiObject> T seen(T o) {
    if (!(o instanceof NodeAllocation r)) {
      return o;
    }
    var devices = new HashMap<>(r.spec().devices());
    devices.keySet().removeIf(d -> MpsShares.parse(d).isPresent());
    return (T) new NodeAllocation(r.metadata(), new NodeAllocationSpec(devices), r.status());
  }
}
