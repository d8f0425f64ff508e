package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
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
final class CacheReadingApi extends ForwardingApiClient {
  private final Informers informers;

  CacheReadingApi(ApiClient api, Informers informers) {
    super(api);
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
}
