package dev.quartermaster.sim.world;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.server.auth.AuthorizingApiClient;
import dev.quartermaster.server.auth.NodeScopedAccess;
import dev.quartermaster.server.auth.Principal;
import dev.quartermaster.sim.ForwardingApiClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Every simulated agent is held to its node's access rule (the server's {@link NodeScopedAccess},
 * judged on stored objects); a write of the real agent that the rule refuses is a gap in the rule
 * (or an agent writing what it must not), so each refusal is kept and reported as a violation.
 */
final class RefusalLog {
  private final List<String> refusals = new ArrayList<>();

  /**
   * {@code api} as node {@code node}'s agent may use it, its refusals logged here — except those
   * of a node fenced when refused: the fence took its claims from it, and refusing a fenced node's
   * agent that still runs what the fence took is the rule working, not a gap in it.
   */
  ApiClient agentView(ApiClient api, String node) {
    var authorized = new AuthorizingApiClient(api, Principal.node(node), new NodeScopedAccess());
    java.util.function.BooleanSupplier fenced =
        () ->
            api.get(dev.quartermaster.api.meta.Kinds.NODE, node)
                .map(n -> n.spec().fenced())
                .orElse(false);
    return new ForwardingApiClient(authorized) {
      @Override
      public <T extends ApiObject> T create(T object) {
        return logged(() -> super.create(object), fenced);
      }

      @Override
      public <T extends ApiObject> T update(T object) {
        return logged(() -> super.update(object), fenced);
      }

      @Override
      public <T extends ApiObject> T updateStatus(T object) {
        return logged(() -> super.updateStatus(object), fenced);
      }

      @Override
      public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
        return logged(() -> super.delete(kind, name), fenced);
      }
    };
  }

  private <R> R logged(Supplier<R> call, java.util.function.BooleanSupplier fenced) {
    try {
      return call.get();
    } catch (ApiException e) {
      if (e.is(ApiError.Reason.Forbidden) && !fenced.getAsBoolean()) {
        synchronized (this) {
          refusals.add(e.getMessage());
        }
      }
      throw e;
    }
  }

  synchronized List<String> refusals() {
    return List.copyOf(refusals);
  }
}
