package dev.quartermaster.control.workload;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.TaskNames;
import dev.quartermaster.api.workload.VolumeClaimTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker slot's template volumes ({@code <workload>-<group>-<ordinal>-<template>}), owned by the
 * workload so every task of the slot finds the same one. Each is read live before the slot's task
 * is made: a volume's name is its slot, so a create is safe to repeat (AlreadyExists: use it), and
 * the live read tells a volume we may use from one still going away or one that is someone else's.
 */
final class SlotVolumes {
  /** Whether a slot's volumes are there for its task. */
  sealed interface Outcome {
    /** Every template volume exists and is ours: the task uses these. */
    record Ready(List<VolumeUse> uses) implements Outcome {}

    /**
     * A volume of the slot is still going away (or held by an earlier workload of this name); its
     * event brings us back.
     */
    record Waiting(String volume) implements Outcome {}

    /**
     * {@code volume} exists and belongs to {@code holder} ({@code kind/name}, or "nobody (made by
     * hand)").
     */
    record Taken(String volume, String holder) implements Outcome {}

    /** The store refused the volume as invalid. */
    record Invalid(String message) implements Outcome {}
  }

  private static final Logger LOG = LoggerFactory.getLogger(SlotVolumes.class);

  private final ApiClient api;

  SlotVolumes(ApiClient api) {
    this.api = api;
  }

  Outcome ensure(Workload w, WorkerGroup group, int ordinal) {
    var task = TaskNames.task(w.metadata().name(), group.name(), ordinal);
    var uses = new ArrayList<VolumeUse>();
    for (var template : group.volumeClaimTemplates()) {
      var name = TaskNames.volume(task, template.name());
      var existing = api.get(Kinds.VOLUME, name);
      if (existing.isEmpty()) {
        try {
          api.create(newVolume(w, group, ordinal, name, template));
          uses.add(new VolumeUse(name, false, template.name()));
          continue;
        } catch (ApiException e) {
          if (e.is(Reason.Invalid)) {
            return new Outcome.Invalid(e.getMessage());
          }
          if (!e.is(Reason.AlreadyExists)) {
            throw e;
          }
          existing = api.get(Kinds.VOLUME, name);
          if (existing.isEmpty()) {
            return new Outcome.Waiting(name); // made and gone in between: decide again
          }
        }
      }
      var v = existing.get();
      if (v.metadata().isDeleting()) {
        return new Outcome.Waiting(name);
      }
      var owner = v.metadata().owner();
      if (owner.isEmpty() && retainedFrom(v, w, group)) {
        // Kept (Retain) when an earlier workload of this name went: this slot takes it back.
        LOG.info("workload {}: adopting retained volume {}", w.metadata().name(), name);
        api.update(v.withMetadata(v.metadata().withOwner(OwnerReference.of(w))));
      } else if (owner.isEmpty()) {
        return new Outcome.Taken(name, "nobody (made by hand)");
      } else if (!owner.get().uid().equals(w.metadata().uid())) {
        if (owner.get().kind().equals(Kinds.WORKLOAD.name())
            && owner.get().name().equals(w.metadata().name())) {
          return new Outcome.Waiting(name); // the earlier workload's cascade deletes or releases it
        }
        return new Outcome.Taken(
            name, owner.get().kind().toLowerCase(Locale.ROOT) + "/" + owner.get().name());
      }
      uses.add(new VolumeUse(name, false, template.name()));
    }
    return new Outcome.Ready(uses);
  }

  /**
   * Deletes a template volume its slot no longer needs; the volume controller frees it in the
   * plugin.
   */
  void delete(Volume v) {
    try {
      api.delete(Kinds.VOLUME, v.metadata().name());
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }

  /**
   * Lets a retained volume outlive its workload: without an owner nothing deletes it with the
   * workload.
   */
  void release(Volume v) {
    try {
      api.update(v.withMetadata(v.metadata().withoutOwner()));
    } catch (ApiException e) {
      if (!e.is(Reason.NotFound)) {
        throw e;
      }
    }
  }

  private static boolean retainedFrom(Volume v, Workload w, WorkerGroup group) {
    var l = v.metadata().labels();
    return w.metadata().name().equals(l.get(Labels.WORKLOAD))
        && group.name().equals(l.get(Labels.GROUP));
  }

  private static Volume newVolume(
      Workload w, WorkerGroup group, int ordinal, String name, VolumeClaimTemplate t) {
    var labels =
        Map.of(
            Labels.WORKLOAD,
            w.metadata().name(),
            Labels.GROUP,
            group.name(),
            Labels.ORDINAL,
            Integer.toString(ordinal));
    return new Volume(
        ObjectMeta.named(name).withLabels(labels).withOwner(OwnerReference.of(w)),
        t.spec(),
        VolumeStatus.EMPTY);
  }

  /** The slot of a template volume, from its labels. */
  static Optional<Integer> ordinal(Volume v) {
    try {
      return Optional.ofNullable(v.metadata().labels().get(Labels.ORDINAL)).map(Integer::valueOf);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
