package dev.quartermaster.api.validation;

import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A client's create carries no status of a kind whose status the system writes (controllers and
 * agents): a task created {@code Succeeded}, a volume with a claim, a claim {@code Prepared} on a
 * node would be believed by every reader and acted on by none. A node's status is its agent's,
 * which registers the node with it: the server refuses it from anyone else ({@code
 * NodeStatusOnCreate}, which knows who writes); the other kinds keep no status.
 */
final class StatusOnCreate {
  static final Set<Kind<?>> SYSTEM_OWNED =
      Set.of(
          Kinds.TASK,
          Kinds.WORKLOAD,
          Kinds.RESOURCE_CLAIM,
          Kinds.VOLUME,
          Kinds.COMPUTE_DOMAIN,
          Kinds.QUEUE);
  private static final String RULE =
      "must be empty on create: the system writes the status; leave it out";
  private static final Map<Kind<?>, Record> EMPTY = new ConcurrentHashMap<>();

  private StatusOnCreate() {}

  /**
   * One violation per status field that differs from the kind's empty status, named {@code
   * status.FIELD}.
   */
  static void check(ApiObject object, Violations v) {
    var kind = object.kind();
    if (!SYSTEM_OWNED.contains(kind) || object.status() == null) {
      return;
    }
    var given = object.status();
    var empty = EMPTY.computeIfAbsent(kind, k -> ObjectCodec.blank(k).status());
    if (given.equals(empty)) {
      return;
    }
    for (var component : given.getClass().getRecordComponents()) {
      if (!Objects.equals(read(component, given), read(component, empty))) {
        v.add("status." + component.getName(), RULE);
      }
    }
  }

  private static Object read(java.lang.reflect.RecordComponent component, Record status) {
    try {
      return component.getAccessor().invoke(status);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + component, e);
    }
  }
}
