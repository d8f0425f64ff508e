package dev.quartermaster.server.auth;

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
import dev.quartermaster.api.meta.Kinds;
import java.util.List;
import java.util.Optional;

/**
 * The API as {@code who} may use it, in process: every call judged by the same {@link WriteJudge}
 * the HTTP routes use before it reaches {@code api}. An agent that {@code qm up} (or the
 * simulation) runs beside the server gets one for its node, so it is held to exactly the rules an
 * agent on another machine is held to over HTTP.
 */
public final class AuthorizingApiClient implements ApiClient {
  private final ApiClient api;
  private final Principal who;
  private final WriteJudge judge;

  public AuthorizingApiClient(ApiClient api, Principal who, AccessRule rule) {
    this.api = api;
    this.who = who;
    this.judge = new WriteJudge(api, rule);
  }

  @Override
  public <T extends ApiObject> Optional<T> get(Kind<T> kind, String name) {
    judge.require(who, Access.read(Access.Verb.GET, kind, Optional.of(name)));
    return api.get(kind, name);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(Kind<T> kind, LabelSelector selector) {
    judge.require(who, Access.read(Access.Verb.LIST, kind, Optional.empty()));
    return api.list(kind, selector);
  }

  @Override
  public <T extends ApiObject> ObjectList<T> list(
      Kind<T> kind, LabelSelector selector, dev.quartermaster.api.client.ListPage page) {
    judge.require(who, Access.read(Access.Verb.LIST, kind, Optional.empty()));
    return api.list(kind, selector, page);
  }

  @Override
  public <T extends ApiObject> T create(T object) {
    var kind = Kinds.of(object);
    judge.requireWrite(
        who,
        Access.write(Access.Verb.CREATE, kind, object.metadata().name(), Optional.of(object)),
        kind,
        object);
    return api.create(object);
  }

  @Override
  public <T extends ApiObject> T update(T object) {
    var kind = Kinds.of(object);
    judge.requireWrite(
        who,
        Access.write(Access.Verb.UPDATE, kind, object.metadata().name(), Optional.of(object)),
        kind,
        object);
    return api.update(object);
  }

  @Override
  public <T extends ApiObject> T updateStatus(T object) {
    var kind = Kinds.of(object);
    judge.requireWrite(
        who,
        Access.write(
            Access.Verb.UPDATE_STATUS, kind, object.metadata().name(), Optional.of(object)),
        kind,
        object);
    return api.updateStatus(object);
  }

  /** Every write of the batch is judged as it would be alone, before any of it is applied. */
  @Override
  public int writesPerCommit() {
    return api.writesPerCommit();
  }

  @Override
  public List<ApiObject> commit(List<Write> writes) {
    for (var w : writes) {
      var object = w.object();
      var kind = Kinds.of(object);
      var verbs =
          switch (w) {
            case Write.Create c -> List.of(Access.Verb.CREATE);
            case Write.Update u -> List.of(Access.Verb.UPDATE);
            case Write.UpdateStatus u -> List.of(Access.Verb.UPDATE_STATUS);
            case Write.UpdateWithStatus u -> List.of(Access.Verb.UPDATE, Access.Verb.UPDATE_STATUS);
          };
      for (var verb : verbs) {
        judge.requireWrite(
            who,
            Access.write(verb, kind, object.metadata().name(), Optional.of(object)),
            kind,
            object);
      }
    }
    return api.commit(writes);
  }

  @Override
  public <T extends ApiObject> DeleteResult<T> delete(Kind<T> kind, String name) {
    judge.requireDelete(
        who, Access.write(Access.Verb.DELETE, kind, name, Optional.empty()), kind, name);
    return api.delete(kind, name);
  }

  @Override
  public <T extends ApiObject> WatchHandle watch(
      Kind<T> kind, long afterRevision, WatchScope scope, WatchHandler<T> handler) {
    judge.require(who, Access.read(Access.Verb.WATCH, kind, Optional.empty()));
    return api.watch(kind, afterRevision, scope, handler);
  }
}
