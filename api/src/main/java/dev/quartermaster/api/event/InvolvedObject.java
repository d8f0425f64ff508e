package dev.quartermaster.api.event;

import dev.quartermaster.api.meta.ApiObject;

/**
 * The object an event is about.
 *
 * @param kind the kind's manifest name ({@code Task})
 * @param name the object's name
 */
public record InvolvedObject(String kind, String name) {
  public static final InvolvedObject NONE = new InvolvedObject("", "");

  /**
   * The controllers as a whole, for what happens to no single object: their terms as leader ({@code
   * qm get events --for controlplane/controllers}).
   */
  public static final InvolvedObject CONTROLLERS =
      new InvolvedObject("ControlPlane", "controllers");

  public InvolvedObject {
    kind = kind == null ? "" : kind;
    name = name == null ? "" : name;
  }

  public static InvolvedObject of(ApiObject object) {
    return new InvolvedObject(object.kind().name(), object.metadata().name());
  }

  @Override
  public String toString() {
    return kind.toLowerCase(java.util.Locale.ROOT) + "/" + name;
  }
}
