package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.DeleteResult;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.SpecDecision;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.Env;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workload controller's task writes, each recorded in {@link GroupExpectations} with the
 * revision it got, so the group is not decided again before the cache shows it. A create that finds
 * its name held by a task this workload does not own is not retried blindly: it is reported as
 * {@link Created.NameTaken}, naming the holder, and the rest of the group goes on.
 */
final class TaskWriter {
  /** How a create went. */
  sealed interface Created {
    record Done() implements Created {}

    /**
     * {@code task} exists and belongs to {@code holder} ({@code kind/name}, or "nobody (made by
     * hand)").
     */
    record NameTaken(String task, String holder) implements Created {}

    /** The store refused the task as invalid. */
    record Invalid(String message) implements Created {}
  }

  private static final Logger LOG = LoggerFactory.getLogger(TaskWriter.class);

  private final Env env;
  private final ApiClient api;
  private final GroupExpectations expectations;
  private final AtomicLong creates = new AtomicLong();
  private final AtomicLong duplicateCreates = new AtomicLong();

  TaskWriter(Env env, ApiClient api, GroupExpectations expectations) {
    this.env = env;
    this.api = api;
    this.expectations = expectations;
  }

  long creates() {
    return creates.get();
  }

  long duplicateCreates() {
    return duplicateCreates.get();
  }

  /**
   * Deletes surplus task {@code t} for a scale-down decided on spec {@code generation}: first marks
   * it ({@link SpecDecision#SCALE_DOWN_AT}), so that the server deletes it only while the workload
   * is still at that generation — the read that found it surplus and the delete cannot be one call,
   * and a spec that moves in between must not cost a wanted worker (the server answers 409; we
   * decide again).
   */
  void scaleDown(String key, Task t, long generation) {
    var mark = Long.toString(generation);
    var marked = t;
    if (!mark.equals(t.metadata().labels().get(SpecDecision.SCALE_DOWN_AT))) {
      var labels = new HashMap<>(t.metadata().labels());
      labels.put(SpecDecision.SCALE_DOWN_AT, mark);
      try {
        marked = api.update(t.withMetadata(t.metadata().withLabels(labels)));
      } catch (ApiException e) {
        if (e.is(Reason.NotFound)) {
          return;
        }
        throw e;
      }
    }
    delete(key, marked);
  }

  void delete(String key, Task t) {
    try {
      var result = api.delete(Kinds.TASK, t.metadata().name());
      long revision =
          switch (result) {
            case DeleteResult.Deleted<Task> d -> d.object().metadata().revision();
            case DeleteResult.Terminating<Task> d -> d.object().metadata().revision();
          };
      expectations.wrote(key, t.metadata().name(), "delete", revision, env.nanoTime());
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }

  /**
   * Creates the slot's task; {@code slotVolumes} are its template volumes, used besides the
   * template's own.
   */
  Created create(
      String key,
      Workload w,
      WorkerGroup group,
      int ordinal,
      int attempt,
      List<VolumeUse> slotVolumes) {
    var name = TaskNames.task(w.metadata().name(), group.name(), ordinal);
    var uid = w.metadata().uid();
    var tmpl = group.template();
    var labels = new HashMap<>(tmpl.labels());
    labels.put(Labels.WORKLOAD, w.metadata().name());
    labels.put(Labels.GROUP, group.name());
    labels.put(Labels.ORDINAL, Integer.toString(ordinal));
    // The server creates it only while the workload is still at this generation (SpecDecision).
    labels.put(SpecDecision.CREATED_AT, Long.toString(w.metadata().generation()));
    var claims = TaskNames.claims(name, group, w.spec());
    var meta =
        ObjectMeta.named(name)
            .withLabels(labels)
            .withOwner(OwnerReference.of(w))
            .withFinalizers(List.of(Labels.CLAIMS_FINALIZER));
    var volumes = Stream.concat(tmpl.volumes().stream(), slotVolumes.stream()).toList();
    var spec =
        new TaskSpec(
            Optional.empty(),
            tmpl.command(),
            tmpl.env(),
            claims,
            volumes,
            tmpl.runtime(),
            tmpl.image(),
            attempt,
            tmpl.onDeviceLoss(),
            tmpl.terminationGracePeriodSeconds(),
            tmpl.activeDeadlineSeconds());
    try {
      var created = api.create(new Task(meta, spec, TaskStatus.EMPTY));
      creates.incrementAndGet();
      expectations.wrote(key, name, "create", created.metadata().revision(), env.nanoTime());
      return new Created.Done();
    } catch (ApiException e) {
      if (e.is(Reason.AlreadyExists)) {
        // Our own stale view, or a task we do not own? Only a live read can tell.
        var holder =
            api.get(Kinds.TASK, name).filter(t -> !ownedBy(t, uid) && !earlierIncarnation(t, w));
        if (holder.isPresent()) {
          return new Created.NameTaken(name, holder(holder.get()));
        }
        duplicateCreates.incrementAndGet();
        LOG.warn("task {} already exists: our view was stale", name);
        throw e; // retried with backoff, on a fresher view
      }
      if (e.is(Reason.Invalid)) {
        return new Created.Invalid(e.getMessage());
      }
      throw e;
    }
  }

  private static boolean ownedBy(Task t, String uid) {
    return t.metadata().owner().map(o -> o.uid().equals(uid)).orElse(false);
  }

  /**
   * Left by an earlier workload of the same name: the group plan deletes it, it is no collision.
   */
  private static boolean earlierIncarnation(Task t, Workload w) {
    return t.metadata()
        .owner()
        .map(o -> o.kind().equals(Kinds.WORKLOAD.name()) && o.name().equals(w.metadata().name()))
        .orElse(false);
  }

  static String holder(Task t) {
    return t.metadata()
        .owner()
        .map(o -> o.kind().toLowerCase(java.util.Locale.ROOT) + "/" + o.name())
        .orElse("nobody (made by hand)");
  }
}
