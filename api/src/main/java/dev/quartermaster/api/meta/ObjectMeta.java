package dev.quartermaster.api.meta;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every object carries besides its spec and status.
 *
 * @param name unique within its kind; DNS-label-like, because names become paths and labels
 * @param uid assigned by the server at create; a re-created object gets a new one
 * @param revision the store revision of this object's last write; updates compare-and-set on it
 * @param generation incremented by the server when the spec changes
 * @param createdAt set by the server at create
 * @param deletedAt set by a graceful delete; the object stays until its finalizers are gone
 * @param finalizers names of the parties that must finish clean-up before the object goes away
 * @param owner the object this one belongs to; deleting the owner deletes it
 */
public record ObjectMeta(
    String name,
    String uid,
    long revision,
    long generation,
    Map<String, String> labels,
    Optional<Instant> createdAt,
    Optional<Instant> deletedAt,
    List<String> finalizers,
    Optional<OwnerReference> owner) {

  public ObjectMeta {
    name = name == null ? "" : name;
    uid = uid == null ? "" : uid;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    createdAt = createdAt == null ? Optional.empty() : createdAt;
    deletedAt = deletedAt == null ? Optional.empty() : deletedAt;
    finalizers = finalizers == null ? List.of() : List.copyOf(finalizers);
    owner = owner == null ? Optional.empty() : owner;
  }

  /** Metadata for a new object: just a name. */
  public static ObjectMeta named(String name) {
    return new ObjectMeta(
        name, "", 0, 0, Map.of(), Optional.empty(), Optional.empty(), List.of(), Optional.empty());
  }

  public ObjectMeta withName(String n) {
    return new ObjectMeta(
        n, uid, revision, generation, labels, createdAt, deletedAt, finalizers, owner);
  }

  public ObjectMeta withUid(String u) {
    return new ObjectMeta(
        name, u, revision, generation, labels, createdAt, deletedAt, finalizers, owner);
  }

  public ObjectMeta withRevision(long r) {
    return new ObjectMeta(
        name, uid, r, generation, labels, createdAt, deletedAt, finalizers, owner);
  }

  public ObjectMeta withGeneration(long g) {
    return new ObjectMeta(name, uid, revision, g, labels, createdAt, deletedAt, finalizers, owner);
  }

  public ObjectMeta withLabels(Map<String, String> l) {
    return new ObjectMeta(
        name, uid, revision, generation, l, createdAt, deletedAt, finalizers, owner);
  }

  public ObjectMeta withCreatedAt(Instant t) {
    return new ObjectMeta(
        name, uid, revision, generation, labels, Optional.of(t), deletedAt, finalizers, owner);
  }

  public ObjectMeta withDeletedAt(Instant t) {
    return new ObjectMeta(
        name, uid, revision, generation, labels, createdAt, Optional.of(t), finalizers, owner);
  }

  public ObjectMeta withFinalizers(List<String> f) {
    return new ObjectMeta(name, uid, revision, generation, labels, createdAt, deletedAt, f, owner);
  }

  public ObjectMeta withOwner(OwnerReference o) {
    return new ObjectMeta(
        name, uid, revision, generation, labels, createdAt, deletedAt, finalizers, Optional.of(o));
  }

  /** This metadata with no owner: the object outlives what owned it (e.g. a retained volume). */
  public ObjectMeta withoutOwner() {
    return new ObjectMeta(
        name,
        uid,
        revision,
        generation,
        labels,
        createdAt,
        deletedAt,
        finalizers,
        Optional.empty());
  }

  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isDeleting() {
    return deletedAt.isPresent();
  }
}
