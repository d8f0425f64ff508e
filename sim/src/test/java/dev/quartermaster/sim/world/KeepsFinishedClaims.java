package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.client.FencingClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.sim.ForwardingApiClient;

/**
 * The controllers as they were before issue 44 (item 1): a task's claims went only with the task,
 * so a finished task kept its devices allocated and prepared, while its job's quota went back. The
 * real controllers reach the cluster through this view, which drops each delete of a claim whose
 * owner task is there, not being deleted, and finished. Everything else goes through unchanged,
 * fenced as the controllers' writes are.
 */
final class KeepsFinishedClaims extends ForwardingApiClient implements FencingClient {
  KeepsFinishedClaims(ApiClient api) {
    super(api);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    if (kind == Kinds.RESOURCE_CLAIM) {
      var claim = api.get(Kinds.RESOURCE_CLAIM, name);
      if (claim.isPresent() && ofFinishedTask(claim.get())) {
        return new DeleteResult.Terminating<>(kind.cast(claim.get()));
      }
    }
    return api.delete(kind, name);
  }

  private boolean ofFinishedTask(ResourceClaim c) {
    return c.metadata()
        .owner()
        .filter(o -> o.kind().equals(Kinds.TASK.name()))
        .flatMap(o -> api.get(Kinds.TASK, o.name()).filter(t -> t.metadata().uid().equals(o.uid())))
        .filter(t -> !t.metadata().isDeleting() && t.status().phase().isFinished())
        .isPresent();
  }

  @Override
  public ApiClient fencedBy(String key, long revision) {
    return new KeepsFinishedClaims(((FencingClient) api).fencedBy(key, revision));
  }

  @Override
  public ApiClient unfencedBy(String key, long revision) {
    return new KeepsFinishedClaims(((FencingClient) api).unfencedBy(key, revision));
  }
}
