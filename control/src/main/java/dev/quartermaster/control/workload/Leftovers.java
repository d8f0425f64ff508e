package dev.quartermaster.control.workload;

import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.cluster.Labels;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a workload's spec no longer wants and this controller deletes: tasks of groups the spec
 * dropped, and template volumes no slot needs any more ({@link SurplusVolumes}). Destructive
 * writes, so only on the newest spec.
 */
final class Leftovers {
  private static final Logger LOG = LoggerFactory.getLogger(Leftovers.class);

  private final Informers informers;
  private final TaskWriter writer;
  private final SlotVolumes slotVolumes;
  private final GroupViews views;

  Leftovers(Informers informers, TaskWriter writer, SlotVolumes slotVolumes, GroupViews views) {
    this.informers = informers;
    this.writer = writer;
    this.slotVolumes = slotVolumes;
    this.views = views;
  }

  /**
   * Deletes the tasks, then the volumes, of the groups {@code w}'s spec no longer has, once the
   * spec is read to be the newest. Judged on the cache first: nearly every pass of every workload
   * finds nothing of a removed group, and then reads nothing live.
   */
  void deleteRemovedGroups(Workload w, SpecFreshness freshness) {
    Set<String> groups = new HashSet<>();
    w.spec().groups().forEach(g -> groups.add(g.name()));
    var cache = informers.tasks().cache();
    int inGroups = 0;
    for (var g : groups) {
      inGroups += cache.countByIndex(Informers.BY_GROUP, w.metadata().name() + "/" + g);
    }
    // Counted first: every pass of a workload of thousands of tasks comes here, and nearly always
    // every task of the workload is in a group of its spec.
    boolean tasksOutsideGroups =
        cache.countByIndex(Informers.BY_WORKLOAD, w.metadata().name()) != inGroups;
    // A removed group's volumes go once its tasks are: judged on a live list, as no gate covers a
    // group the spec no longer has (rare: only when such volumes are cached).
    var removed = new TreeSet<String>();
    informers.volumes().cache().byIndex(Informers.BY_WORKLOAD, w.metadata().name()).stream()
        .map(v -> v.metadata().labels().getOrDefault(Labels.GROUP, ""))
        .filter(g -> !groups.contains(g))
        .forEach(removed::add);
    if (!tasksOutsideGroups && removed.isEmpty() || !freshness.isNewest()) {
      return;
    }
    for (var t :
        tasksOutsideGroups
            ? cache.byIndex(Informers.BY_WORKLOAD, w.metadata().name())
            : List.<Task>of()) {
      var g = t.metadata().labels().getOrDefault(Labels.GROUP, "");
      if (!groups.contains(g) && !t.metadata().isDeleting()) {
        writer.delete(w.metadata().uid() + "/" + g, t);
      }
    }
    for (var g : removed) {
      releaseVolumes(w, g, Optional.empty(), views.live(w.metadata().name(), g), freshness);
    }
  }

  /** Deletes the group's template volumes that no slot needs any more, given its tasks. */
  void releaseVolumes(
      Workload w,
      String group,
      Optional<WorkerGroup> spec,
      List<Task> tasks,
      SpecFreshness freshness) {
    var surplus =
        SurplusVolumes.surplus(
            w.metadata().name(),
            group,
            w.metadata().uid(),
            spec,
            informers
                .volumes()
                .cache()
                .byIndex(Informers.BY_GROUP, w.metadata().name() + "/" + group),
            tasks);
    for (var v : surplus) {
      if (!freshness.stillNewest()) {
        return;
      }
      LOG.info(
          "workload {} group {}: deleting volume {}, its slot is gone",
          w.metadata().name(),
          group,
          v.metadata().name());
      slotVolumes.delete(v);
    }
  }
}
