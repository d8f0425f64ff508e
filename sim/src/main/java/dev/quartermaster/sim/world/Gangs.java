package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The gangs of a seed: three jobs placed all together or not at all, competing with each other and
 * with the ordinary workers for the fleet's 12 GPUs (together they may ask for up to 20):
 *
 * <ul>
 *   <li>{@code ring}: 2 × 2 GPUs, {@code RestartGang}, all in one NVLink clique (a compute-domain
 *       job; {@link Topology}: one clique has 8 GPUs, the other 4);
 *   <li>{@code elastic}: 3 × 1 GPU of which 2 make it run, {@code RestartMember}, packed into the
 *       fewest racks;
 *   <li>{@code wide}, in half the seeds: drawn from the seed — 2 or 3 members of 1 or 2 GPUs,
 *       either policy, anywhere or in one clique, all members or 2 at least;
 *   <li>{@code mpi}, in the other half: a workload gang of two groups, 2 workers and a launcher of
 *       1 GPU each, {@code RestartGang}, all in one NVLink clique: G1, G2 and L2 over members of
 *       two groups, and a failed launcher stopping the workers.
 * </ul>
 *
 * Chaos scales each job's workers within {@link Job#minReplicas} and {@link Job#maxReplicas}.
 */
final class Gangs {
  static final String GROUP = "workers";

  /** The second group of a workload gang's job. */
  static final String LAUNCHER = "launcher";

  private Gangs() {}

  /**
   * One gang job: its workers a group gang, or, with launchers, one workload gang of the workers
   * (first, the group chaos scales) and a launcher group of 1 GPU each.
   *
   * @param minMember the workers' share; empty: every replica
   * @param launchers the launcher group's replicas; 0: no launcher, the workers a group gang
   */
  record Job(
      String name,
      int replicas,
      int gpus,
      Optional<Integer> minMember,
      MemberFailurePolicy policy,
      GangTopology topology,
      int launchers) {

    Job(
        String name,
        int replicas,
        int gpus,
        Optional<Integer> minMember,
        MemberFailurePolicy policy,
        GangTopology topology) {
      this(name, replicas, gpus, minMember, policy, topology, 0);
    }

    Workload workload() {
      var workers = group(GROUP, replicas, gpus);
      if (launchers == 0) {
        return workload(
            new WorkloadSpec(
                List.of(workers.withGang(new GangSpec(minMember, policy, topology))),
                Optional.empty()));
      }
      var share = new GangSpec(minMember, Optional.empty(), Optional.empty());
      return workload(
          new WorkloadSpec(
              List.of(
                  minMember.isPresent() ? workers.withGang(share) : workers,
                  group(LAUNCHER, launchers, 1)),
              Optional.empty(),
              Optional.of(new GangSpec(Optional.empty(), policy, topology))));
    }

    private Workload workload(WorkloadSpec spec) {
      return new Workload(ObjectMeta.named(name), spec, WorkloadStatus.EMPTY);
    }

    private WorkerGroup group(String group, int count, int gpusEach) {
      var claim =
          new ClaimTemplate(
              "gpu",
              new ResourceClaimSpec(
                  List.of(new DeviceRequest("gpu", "gpu", gpusEach, List.of())), Optional.empty()));
      return new WorkerGroup(
          group,
          count,
          new TaskTemplate(List.of(name), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
          List.of(claim),
          null);
    }

    /** The fewest replicas a scale may ask for that validation allows ({@code minMember} ≤). */
    int minReplicas() {
      return minMember.orElse(0);
    }

    int maxReplicas() {
      return replicas + 2;
    }
  }

  static List<Job> draw(RandomGenerator random) {
    var clique = new GangTopology(Optional.of(TopologyKeys.NVLINK_CLIQUE), Optional.empty());
    var ring = new Job("ring", 2, 2, Optional.empty(), MemberFailurePolicy.RestartGang, clique);
    var elastic =
        new Job(
            "elastic",
            3,
            1,
            Optional.of(2),
            MemberFailurePolicy.RestartMember,
            new GangTopology(Optional.empty(), Optional.of(TopologyKeys.RACK)));
    int replicas = 2 + random.nextInt(2);
    var wide =
        new Job(
            "wide",
            replicas,
            1 + random.nextInt(2),
            random.nextBoolean() ? Optional.empty() : Optional.of(2),
            random.nextBoolean()
                ? MemberFailurePolicy.RestartGang
                : MemberFailurePolicy.RestartMember,
            random.nextBoolean() ? GangTopology.ANYWHERE : clique);
    var mpi = new Job("mpi", 2, 1, Optional.empty(), MemberFailurePolicy.RestartGang, clique, 1);
    // Half the seeds take wide, the other half the smaller mpi (no draw of its own, so the seed's
    // other draws stay as they were): the fleet then has less contention (and the churn of
    // replacements and prepares that room makes), the first half is over-full and the gangs
    // contend.
    return random.nextBoolean() ? List.of(ring, elastic, wide) : List.of(ring, elastic, mpi);
  }
}
