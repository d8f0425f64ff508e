package dev.quartermaster.server.auth;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.event.InvolvedObject;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Objects;
import java.util.Optional;

/**
 * Judges one request by an {@link AccessRule}: a write by anyone but an admin against the object as
 * stored too, and an update only at the revision it names (else 409, as the store would answer), so
 * that the store's compare-and-set on that revision replaces exactly the object that was judged.
 * One home for this, used by the HTTP routes and by {@link AuthorizingApiClient}.
 */
public final class WriteJudge {
  private final ApiClient store;
  private final AccessRule rule;

  /**
   * @param store where the stored object is read (the registry the write goes to)
   */
  public WriteJudge(ApiClient store, AccessRule rule) {
    this.store = Objects.requireNonNull(store, "store");
    this.rule = Objects.requireNonNull(rule, "rule");
  }

  /** Throws 403 naming the rule if {@code who} may not do {@code access}. */
  public void require(Principal who, Access access) {
    rule.deny(who, access)
        .ifPresent(
            reason -> {
              throw new ApiException(ApiError.Reason.Forbidden, reason);
            });
  }

  /**
   * As {@link #require}, for a write of {@code body}, judged against what is stored under its name.
   */
  public <T extends ApiObject> void requireWrite(
      Principal who, Access access, Kind<T> kind, T body) {
    if (who.role() instanceof Principal.Admin) {
      require(who, access);
      return;
    }
    var stored = store.get(kind, body.metadata().name());
    if (access.verb() != Access.Verb.CREATE && stored.isEmpty()) {
      // As the store would answer: an update of what is gone is not a question of access.
      throw new ApiException(ApiError.Reason.NotFound, body.ref() + " not found");
    }
    if (access.verb() != Access.Verb.CREATE
        && stored.get().metadata().revision() != body.metadata().revision()) {
      throw new ApiException(
          ApiError.Reason.Conflict,
          body.ref()
              + " has changed: stored at revision "
              + stored.get().metadata().revision()
              + ", the update names revision "
              + body.metadata().revision()
              + "; read it again");
    }
    var judged = access.against(stored);
    if (body instanceof Event event) {
      var about = event.spec().involved();
      var object = involved(about);
      if (who.role() instanceof Principal.NodeAgent agent
          && Kinds.byName(about.kind()).isPresent()
          && object.filter(o -> NodeScopedAccess.ofNode(o, about, agent.nodeName())).isEmpty()) {
        // As a node sees it, there is no such object of its own: gone, or placed elsewhere, since
        // its agent saw it (a task deleted, or made again on another node), or never its own. Not
        // found, as for anything else it cannot reach, which also says nothing of other nodes'.
        throw new ApiException(
            ApiError.Reason.NotFound,
            body.ref()
                + " is about "
                + about
                + ", which is not an object of node "
                + agent.nodeName()
                + " (gone, or placed elsewhere, since?): an agent records events only about its"
                + " own node's objects (its Node, a Task placed there, a claim that concerns it, a"
                + " Volume with a claim of its node)");
      }
      judged = judged.about(object);
    }
    require(who, judged);
  }

  /** The object an event is about, as stored now; empty for a kind or name that has none. */
  private Optional<? extends ApiObject> involved(InvolvedObject about) {
    return Kinds.byName(about.kind())
        .filter(k -> !about.name().isEmpty())
        .flatMap(k -> store.get(k, about.name()));
  }

  /** As {@link #require}, for a delete of {@code name}, judged against what is stored. */
  public <T extends ApiObject> void requireDelete(
      Principal who, Access access, Kind<T> kind, String name) {
    require(
        who,
        who.role() instanceof Principal.Admin ? access : access.against(store.get(kind, name)));
  }
}
