package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.List;

/**
 * The agent as it was before campaign seed 1128: when the ledger cross-check's list of claims
 * failed at start, the check was skipped, which is the same as a list that names no claim prepared
 * on the node. One of these is made at each start (see {@link Variant#agentView}); its first list
 * of claims, the cross-check's, answers a failure with no claims. Later lists (the informers') fail
 * as they do.
 */
final class ClaimListFailureSeenEmpty extends ForwardingApiClient {
  private boolean crossChecked;

  ClaimListFailureSeenEmpty(ApiClient api) {
    super(api);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    if (kind != Kinds.RESOURCE_CLAIM || crossChecked) {
      return api.list(kind, selector);
    }
    crossChecked = true;
    try {
      return api.list(kind, selector);
    } catch (RuntimeException e) {
      return new ObjectList<>(List.of(), 0);
    }
  }
}
