package dev.quartermaster.server.auth;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.Optional;

/**
 * One request as an access rule sees it.
 *
 * @param name the object's name; empty for list, watch and create-before-decode
 * @param object the decoded body of a write; empty for reads and deletes
 * @param stored the object as stored when the write was judged (for a principal that is not an
 *     admin); an update is judged only at the revision it names, so the store's compare-and-set
 *     replaces exactly the object judged
 * @param involved for the write of an event by a principal that is not an admin: the object the
 *     event is about, as stored then (empty when there is none)
 */
public record Access(
    Verb verb,
    Kind<?> kind,
    Optional<String> name,
    Optional<ApiObject> object,
    Optional<ApiObject> stored,
    Optional<ApiObject> involved) {

  public enum Verb {
    GET,
    LIST,
    WATCH,
    CREATE,
    UPDATE,
    UPDATE_STATUS,
    DELETE;

    public boolean writes() {
      return this == CREATE || this == UPDATE || this == UPDATE_STATUS || this == DELETE;
    }
  }

  public static Access read(Verb verb, Kind<?> kind, Optional<String> name) {
    return new Access(verb, kind, name, Optional.empty(), Optional.empty(), Optional.empty());
  }

  public static Access write(Verb verb, Kind<?> kind, String name, Optional<ApiObject> object) {
    return new Access(verb, kind, Optional.of(name), object, Optional.empty(), Optional.empty());
  }

  /** This write, judged against {@code current} as stored now. */
  public Access against(Optional<? extends ApiObject> current) {
    return new Access(verb, kind, name, object, current.map(ApiObject.class::cast), involved);
  }

  /** This write of an event, judged knowing {@code about}, the object it is about as stored now. */
  public Access about(Optional<? extends ApiObject> about) {
    return new Access(verb, kind, name, object, stored, about.map(ApiObject.class::cast));
  }
}
