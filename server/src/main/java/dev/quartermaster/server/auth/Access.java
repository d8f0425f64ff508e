package dev.quartermaster.server.auth;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import java.util.Optional;

/**
 * One request as an access rule sees it.
 *
 * @param name the object's name; empty for list, watch and create-before-decode
 * @param object the decoded body of a write; empty for reads and deletes
 */
public record Access(Verb verb, Kind<?> kind, Optional<String> name, Optional<ApiObject> object) {

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
    return new Access(verb, kind, name, Optional.empty());
  }

  public static Access write(Verb verb, Kind<?> kind, String name, Optional<ApiObject> object) {
    return new Access(verb, kind, Optional.of(name), object);
  }
}
