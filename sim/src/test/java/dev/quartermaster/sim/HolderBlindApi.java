package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
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
final class HolderBlindApi implements ApiClient {
  private final ApiClient api;
  HolderBlindApi(ApiClient api) {
    this.api = api;
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    return kind.equals(Kinds.TASK) ? Optional.empty() : api.get(kind, name);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    return api.list(kind, selector);
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    return api.create(object);
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    return api.update(object);
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    return api.updateStatus(object);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    return api.delete(kind, name);
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(Kind<T> kind, long afterRevision, WatchHandler<T> handler) {
    return api.watch(kind, afterRevision, handler);
  }
}
