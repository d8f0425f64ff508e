package dev.quartermaster.control.workload;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.core.env.Env;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a group's missing workers in {@link SlowStart} batches, each slot's volumes before its
 * task: the group's gate stays shut until every create of a batch has ended ({@link
 * GroupExpectations#expectCreates}), and the last to end brings the workload back. Names held by
 * others are reported and remembered ({@link TakenNames}), not waited on; a template the store
 * refuses as invalid is reported and not tried again until the spec changes.
 */
final class TaskCreation {
  private static final Logger LOG = LoggerFactory.getLogger(TaskCreation.class);

  /** How long a batch whose creates all failed waits before the group is decided again. */
  private static final Duration FAILED_BATCH_PAUSE = Duration.ofSeconds(1);

  private final Env env;
  private final TaskWriter writer;
  private final GroupExpectations expectations;
  private final SlotVolumes slotVolumes;
  private final Restarts restarts;
  private final EventRecorder events;
  private final ControlLoop loop;
  private final SlowStart slowStart = new SlowStart();
  private final TakenNames taken;

  /** Groups whose template the store refused as invalid, by group key. */
  private final Map<String, Refused> invalid = new ConcurrentHashMap<>();

  TaskCreation(
      Env env,
      TaskWriter writer,
      GroupExpectations expectations,
      SlotVolumes slotVolumes,
      Restarts restarts,
      EventRecorder events,
      ControlLoop loop) {
    this.env = env;
    this.writer = writer;
    this.expectations = expectations;
    this.slotVolumes = slotVolumes;
    this.restarts = restarts;
    this.events = events;
    this.loop = loop;
    this.taken = new TakenNames(loop);
  }

  TakenNames taken() {
    return taken;
  }

  /** Workload {@code uid} is gone: its groups' batches and refusals go too. */
  void forget(String uid) {
    invalid.keySet().removeIf(k -> k.startsWith(uid + "/"));
    slowStart.forgetAll(uid + "/");
  }

  /**
   * One slow-start batch of the group's missing {@code ordinals}, created concurrently (each an
   * {@code Env} task, so the batch shares the store's group commit); what could not be created is
   * added to {@code problems}.
   */
  void create(
      String key,
      Workload w,
      WorkerGroup group,
      List<Integer> ordinals,
      List<CreateProblem> problems,
      SpecFreshness freshness) {
    var refused = invalid.get(key);
    if (refused != null && refused.generation() == w.metadata().generation()) {
      problems.add(CreateProblem.invalid("group " + group.name() + ": " + refused.message()));
      slowStart.done(key, 0, 0);
      return;
    }
    invalid.remove(key);
    int batch = slowStart.batch(key);
    int left = 0;
    var slots = new ArrayList<Slot>();
    for (int ordinal : ordinals) {
      var name = TaskNames.task(w.metadata().name(), group.name(), ordinal);
      var holder = taken.holderFor(w.metadata().name(), name);
      if (holder.isPresent()) {
        // Found held by another's task: reported, and tried again only once that task is gone.
        problems.add(CreateProblem.taskTaken(group.name(), name, holder.get()));
        continue;
      }
      if (slots.size() >= batch) {
        left++;
        continue;
      }
      // The slot's volumes exist before its task, so the task never names a volume that is not
      // there.
      switch (slotVolumes.ensure(w, group, ordinal)) {
        case SlotVolumes.Outcome.Ready r ->
            slots.add(new Slot(ordinal, restarts.attemptFor(key, ordinal), r.uses()));
        case SlotVolumes.Outcome.Waiting wait -> left++;
        case SlotVolumes.Outcome.Taken t -> {
          taken.volumeTaken(t.volume(), w.metadata().name());
          problems.add(CreateProblem.volumeTaken(group.name(), t.volume(), t.holder()));
        }
        case SlotVolumes.Outcome.Invalid i -> {
          problems.add(CreateProblem.invalid("group " + group.name() + ": " + i.message()));
          slowStart.done(key, 0, 0);
          return;
        }
      }
    }
    // One live look at the spec for the whole batch; the store refuses each create anyway if the
    // workload's generation moved (SpecDecision).
    if (slots.isEmpty() || !freshness.stillNewest()) {
      slowStart.done(key, 0, left);
      return;
    }
    expectations.expectCreates(key, slots.size(), env.nanoTime());
    var batchOutcome = new BatchOutcome();
    for (var slot : slots) {
      env.execute(() -> createOne(key, w, group, slot, batchOutcome));
    }
    slowStart.done(key, slots.size(), left);
  }

  /** A slot of a batch: its ordinal, attempt and template volumes. */
  private record Slot(int ordinal, int attempt, List<VolumeUse> uses) {}

  /** What the creates of one batch came to, for whoever ends last. */
  private static final class BatchOutcome {
    final AtomicBoolean wrote = new AtomicBoolean();
    final AtomicBoolean failed = new AtomicBoolean();
    final AtomicBoolean taken = new AtomicBoolean();
  }

  /** A template the store refused, at the workload generation it was refused for. */
  private record Refused(long generation, String message) {}

  /**
   * One create of a batch. The last of the batch to end brings the workload back: at once if the
   * batch wrote (its gate now waits on a revision no pass has seen), after a pause if a create
   * failed (as a thrown error would be retried), and at once if a name was found taken, so that the
   * next pass reports it (that pass skips such names until their holder is gone); a batch the store
   * refused as invalid waits for a change of spec.
   */
  private void createOne(String key, Workload w, WorkerGroup group, Slot slot, BatchOutcome batch) {
    boolean written = false;
    try {
      var outcome = writer.create(key, w, group, slot.ordinal(), slot.attempt(), slot.uses());
      switch (outcome) {
        case TaskWriter.Created.Done d -> {
          written = true;
          // One event per workload counts every create; its message names the latest.
          events.normal(
              w,
              "Created",
              "created task "
                  + TaskNames.task(w.metadata().name(), group.name(), slot.ordinal())
                  + (slot.attempt() > 0 ? " (attempt " + slot.attempt() + ")" : ""));
        }
        case TaskWriter.Created.NameTaken t -> {
          taken.taskTaken(t.task(), w.metadata().name(), t.holder());
          batch.taken.set(true);
        }
        case TaskWriter.Created.Invalid i -> {
          invalid.put(key, new Refused(w.metadata().generation(), i.message()));
          events.warning(w, "FailedCreate", i.message());
        }
      }
    } catch (RuntimeException e) {
      // A stale view (the name exists), a spec that moved, the store unavailable: the next pass
      // decides again.
      batch.failed.set(true);
      LOG.debug(
          "workload {} group {}: create of ordinal {} failed: {}",
          w.metadata().name(),
          group.name(),
          slot.ordinal(),
          e.getMessage());
    } finally {
      if (written) {
        batch.wrote.set(true);
      } else {
        expectations.createEnded(key);
      }
      if (expectations.inFlight(key) == 0) {
        if (batch.wrote.get() || batch.taken.get()) {
          // A taken name is reported by that pass and not tried again until its holder is gone: no
          // loop.
          loop.enqueue(w.metadata().name());
        } else if (batch.failed.get()) {
          loop.enqueueAfter(w.metadata().name(), FAILED_BATCH_PAUSE);
        }
      }
    }
  }
}
