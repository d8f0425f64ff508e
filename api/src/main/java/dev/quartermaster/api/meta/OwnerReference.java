package dev.quartermaster.api.meta;

/** Names the object that owns another; {@code uid} pins the owner's incarnation. */
public record OwnerReference(String kind, String name, String uid) {
  public OwnerReference {
    kind = kind == null ? "" : kind;
    name = name == null ? "" : name;
    uid = uid == null ? "" : uid;
  }

  public static OwnerReference of(ApiObject owner) {
    return new OwnerReference(owner.kind().name(), owner.metadata().name(), owner.metadata().uid());
  }
}
