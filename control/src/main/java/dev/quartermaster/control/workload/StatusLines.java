package dev.quartermaster.control.workload;

import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import dev.quartermaster.control.admission.AdmissionGate;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.core.env.Env;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lines of a workload's status: each group's counts ({@link GroupPlan#status}) with, for a
 * group gang, where it stands, and the workload gang's line ({@link GangStatuses}, from the claims'
 * cache and where the workload stands with its queue).
 */
final class StatusLines {
  private final Env env;
  private final Informers informers;
  private final AdmissionGate admission;
  private final GangRecovery recovery;
  private final GroupViews views;

  StatusLines(
      Env env,
      Informers informers,
      AdmissionGate admission,
      GangRecovery recovery,
      GroupViews views) {
    this.env = env;
    this.informers = informers;
    this.admission = admission;
    this.recovery = recovery;
    this.views = views;
  }

  /** The group's line in the workload's status, given its tasks. */
  GroupStatus group(Workload w, WorkerGroup group, List<Task> tasks) {
    var counts = GroupPlan.status(group, w.metadata().uid(), tasks);
    var gang = WorkloadGangs.ofGroup(w.spec(), group.name()).filter(g -> !g.wholeWorkload());
    if (gang.isEmpty()) {
      return counts;
    }
    var previous = WorkloadGangs.statusOf(w.status(), gang.get().name());
    return counts.withGang(
        Optional.of(gangLine(w, gang.get(), Map.of(group.name(), tasks), previous)));
  }

  /** The group's line, from its tasks as the cache has them (a group not acted on this pass). */
  GroupStatus groupAsCached(Workload w, WorkerGroup group) {
    return group(w, group, views.cached(w.metadata().name(), group.name()));
  }

  /**
   * Where the workload's own gang stands, over all its groups as the caches show them: its line is
   * the workload's ({@code status.gang}), not any one group's.
   */
  Optional<GangStatus> workloadGang(Workload w) {
    var gang = WorkloadGangs.named(w.spec(), Gang.WHOLE_WORKLOAD);
    if (gang.isEmpty()) {
      return Optional.empty();
    }
    var tasks = new HashMap<String, List<Task>>();
    gang.get().groups().forEach(g -> tasks.put(g, views.cached(w.metadata().name(), g)));
    return Optional.of(gangLine(w, gang.get(), tasks, w.status().gang()));
  }

  private GangStatus gangLine(
      Workload w, Gang gang, Map<String, List<Task>> tasks, Optional<GangStatus> previous) {
    var view =
        new GangView(
            gang,
            w.spec(),
            w.metadata().uid(),
            tasks,
            PartialGangs.claimsOf(informers, w, gang),
            g -> admission.admittedReplicas(w, g));
    return GangStatuses.of(view, gangAdmission(w), recovery, previous, env.now());
  }

  /** Where {@code w} stands with its queue, as its gangs' lines say it. */
  private GangAdmission gangAdmission(Workload w) {
    if (!admission.queued()) {
      return GangAdmission.Admitted;
    }
    if (admission.eviction(w).isPresent()) {
      return GangAdmission.Evicted;
    }
    return w.spec().groups().stream().anyMatch(g -> admission.admittedReplicas(w, g.name()) > 0)
        ? GangAdmission.Admitted
        : GangAdmission.Waiting;
  }
}
