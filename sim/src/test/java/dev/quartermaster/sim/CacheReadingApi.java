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
import dev.quartermaster.control.cluster.Informers;
import java.util.Optional;

/**
 * The naive variant of the workload controller's spec check, kept to prove the tests can tell: its
 * "live" read of a workload is answered from the informer cache, so the controller scales (down as
 * well as up) to whatever spec its cache holds. Every other call goes to the real API.
 */
final class CacheReadingApi implements ApiClient {
  private final ApiClient api;
  private final Informers informers;

  CacheReadingApi(ApiClient api, Informers informers) {
    this.api = api;
    this.informers = informers;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    if (kind.equals(Kinds.WORKLOAD)) {
      return (Optional<T>) informers.workloads().cache().get(name);
    }
    return api.get(kind, name);
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
