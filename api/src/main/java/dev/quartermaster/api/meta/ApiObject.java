package dev.quartermaster.api.meta;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * One object of the API: {@code {kind, metadata, spec, status}}.
 *
 * <p>The set of kinds is closed and listed in {@link Kinds}. Records implement this with covariant
 * returns, so typed code keeps its type ({@code Node.withMetadata} returns a {@code Node}).
 */
public interface ApiObject {

  ObjectMeta metadata();

  /** The desired state, written by users and controllers through update. */
  Record spec();

  /** The observed state, written only through updateStatus. */
  Record status();

  ApiObject withMetadata(ObjectMeta metadata);

  /** This object with the status of {@code other}, which must be of the same kind. */
  ApiObject withStatusOf(ApiObject other);

  @JsonIgnore
  Kind<? extends ApiObject> kind();

  /** A short human reference such as {@code task/train-workers-3}. */
  @JsonIgnore
  default String ref() {
    return kind().singular() + "/" + metadata().name();
  }
}
