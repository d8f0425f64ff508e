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

  /** Nodes an operator fenced in this run, unfenced since or not. */
  private final java.util.Set<String> fenced = new java.util.HashSet<>();

  /** An operator fenced {@code node}. */
  synchronized void fenced(String node) {
    fenced.add(node);
  }

  /**
   * {@code api} as node {@code node}'s agent may use it, its refusals logged here — except those of
   * a node that was fenced: the fence took its claims from it, and an agent that still acts on them
   * from a cache the fence left stale (cut off while fenced, unfenced since) is refused rightly:
   * that is the rule working, not a gap in it.
   */
  ApiClient agentView(ApiClient api, String node) {
    var authorized = new AuthorizingApiClient(api, Principal.node(node), new NodeScopedAccess());
    return new ForwardingApiClient(authorized) {
      @Override
      public <T extends ApiObject> T create(T object) {
        return logged(node, () -> super.create(object));
      }

      @Override
      public <T extends ApiObject> T update(T object) {
        return logged(node, () -> super.update(object));
      }

      @Override
      public <T extends ApiObject> T updateStatus(T object) {
        return logged(node, () -> super.updateStatus(object));
      }

      @Override
      public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
        return logged(node, () -> super.delete(kind, name));
      }
    };
  }

  private <R> R logged(String node, Supplier<R> call) {
    try {
      return call.get();
    } catch (ApiException e) {
      if (e.is(ApiError.Reason.Forbidden)) {
        synchronized (this) {
          if (!fenced.contains(node)) {
            refusals.add(e.getMessage());
          }
        }
      }
      throw e;
    }
  }

  synchronized List<String> refusals() {
    return List.copyOf(refusals);
  }
}
