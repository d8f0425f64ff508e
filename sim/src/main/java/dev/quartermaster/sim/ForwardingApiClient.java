package dev.quartermaster.sim;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.List;
import java.util.Optional;

/** Every call goes to {@code api}; a naive variant overrides the one call it changes. */
public abstract class ForwardingApiClient implements ApiClient {
  protected final ApiClient api;

  protected ForwardingApiClient(ApiClient api) {
    this.api = api;
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
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
  public int writesPerCommit() {
    return api.writesPerCommit();
  }

  @Override
  public List<ApiObject> commit(List<Write> writes) {
    return api.commit(writes);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    return api.delete(kind, name);
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    return api.watch(kind, afterRevision, scope, handler);
  }
}
