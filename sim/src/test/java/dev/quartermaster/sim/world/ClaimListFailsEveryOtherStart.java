package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * The fault of campaign seed 1128 made sure rather than drawn: a busy server fails the first list
 * of claims an agent makes at a start (the ledger cross-check's), at every other start in the run,
 * so that a start after a lost journal meets it half the time and the next start does not (the real
 * agent's start fails, and the next one can ask).
 */
final class ClaimListFailsEveryOtherStart extends ForwardingApiClient {
  private final boolean fails;
  private boolean listed;

  private ClaimListFailsEveryOtherStart(ApiClient api, boolean fails) {
    super(api);
    this.fails = fails;
  }

  /**
   * A view per agent start, failing the first claim list of every other restart of a node (its
   * first start, when the world is made, never: the simulation does not start it again).
   */
  static UnaryOperator<ApiClient> views() {
    var starts = new java.util.IdentityHashMap<ApiClient, AtomicInteger>();
    return api -> {
      int n = starts.computeIfAbsent(api, a -> new AtomicInteger()).getAndIncrement();
      return new ClaimListFailsEveryOtherStart(api, n % 2 == 1);
    };
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    if (kind == Kinds.RESOURCE_CLAIM && !listed) {
      listed = true;
      if (fails) {
        throw new ApiException(ApiError.Reason.Unavailable, "the server is busy (injected)");
      }
    }
    return api.list(kind, selector);
  }
}
