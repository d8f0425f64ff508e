package dev.quartermaster.api.client.http;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.meta.ApiObject;
import java.util.Optional;

/**
 * One line of a watch stream, a JSON document terminated by {@code \n}:
 *
 * <ul>
 *   <li>{@code {"type":"ADDED|MODIFIED|DELETED","object":{...}}}: a change, in revision order;
 *   <li>{@code {"type":"BOOKMARK","revision":N}}: a keep-alive; every change up to {@code N} that
 *       this watch selects has been sent, so a client may resume from {@code N};
 *   <li>{@code {"type":"ERROR","error":{...},"compactedRevision":N}}: the watch ended; the last
 *       line. A 410 error means the history was compacted ({@code compactedRevision} says up to
 *       where).
 * </ul>
 */
public record WatchLine(
    Type type,
    Optional<ApiObject> object,
    Optional<Long> revision,
    Optional<ApiError> error,
    Optional<Long> compactedRevision) {

  public enum Type {
    ADDED,
    MODIFIED,
    DELETED,
    BOOKMARK,
    ERROR
  }

  public WatchLine {
    object = object == null ? Optional.empty() : object;
    revision = revision == null ? Optional.empty() : revision;
    error = error == null ? Optional.empty() : error;
    compactedRevision = compactedRevision == null ? Optional.empty() : compactedRevision;
  }

  public static WatchLine event(WatchEvent<?> event) {
    var type =
        switch (event.type()) {
          case ADDED -> Type.ADDED;
          case MODIFIED -> Type.MODIFIED;
          case DELETED -> Type.DELETED;
        };
    return new WatchLine(
        type, Optional.of(event.object()), Optional.empty(), Optional.empty(), Optional.empty());
  }

  public static WatchLine bookmark(long revision) {
    return new WatchLine(
        Type.BOOKMARK, Optional.empty(), Optional.of(revision), Optional.empty(), Optional.empty());
  }

  public static WatchLine error(ApiError error) {
    return new WatchLine(
        Type.ERROR, Optional.empty(), Optional.empty(), Optional.of(error), Optional.empty());
  }

  public static WatchLine gone(ApiError error, long compactedRevision) {
    return new WatchLine(
        Type.ERROR,
        Optional.empty(),
        Optional.empty(),
        Optional.of(error),
        Optional.of(compactedRevision));
  }
}
