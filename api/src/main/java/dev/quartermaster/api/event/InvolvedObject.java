package dev.quartermaster.api.event;

import dev.quartermaster.api.meta.ApiObject;

/**
 * The object an event is about.
 *
 * @param kind the kind's manifest name ({@code Task})
 * @param name the object's name
 * @param uid the object's uid, so that an object made again under the same name starts its own
 *     events rather than adding to its predecessor's counts; empty when not known (a node named by
 *     its agent, the controllers)
 */
public record InvolvedObject(String kind, String name, String uid) {
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
    uid = uid == null ? "" : uid;
  }

  /** An object named without its uid: every incarnation of that name. */
  public InvolvedObject(String kind, String name) {
    this(kind, name, "");
  }

  public static InvolvedObject of(ApiObject object) {
    return new InvolvedObject(
        object.kind().name(), object.metadata().name(), object.metadata().uid());
  }

  /** This object named without its uid: every incarnation of its name. */
  public InvolvedObject withoutUid() {
    return new InvolvedObject(kind, name, "");
  }

  /**
   * Whether an event about {@code other} concerns this object: same incarnation, or either unknown.
   */
  public boolean sameIncarnation(InvolvedObject other) {
    return kind.equals(other.kind)
        && name.equals(other.name)
        && (uid.isEmpty() || other.uid.isEmpty() || uid.equals(other.uid));
  }

  @Override
  public String toString() {
    return kind.toLowerCase(java.util.Locale.ROOT) + "/" + name;
  }
}
