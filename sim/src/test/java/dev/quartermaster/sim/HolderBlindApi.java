package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Optional;

/**
 * The naive variant of the workload controller's name handling, kept to prove the tests can tell:
 * it cannot read who holds a task name, so every AlreadyExists looks like its own stale view (the
 * controller before issue 8: retry the same create forever, the rest of the group stalled, the
 * status silent). Every other call goes to the real API.
 */
final class HolderBlindApi extends ForwardingApiClient {
  HolderBlindApi(ApiClient api) {
    super(api);
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return kind.equals(Kinds.TASK) ? Optional.empty() : api.get(kind, name);
  }
}
