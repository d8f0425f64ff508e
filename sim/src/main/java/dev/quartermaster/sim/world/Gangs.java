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
 * The gangs of a seed: two or three jobs whose one worker group is placed all together or not at
 * all, competing with each other and with the ordinary workers for the fleet's 12 GPUs (together
 * they may ask for up to 20):
 *
 * <ul>
 *   <li>{@code ring}: 2 × 2 GPUs, {@code RestartGang}, all in one NVLink clique (a compute-domain
 *       job; {@link Topology}: one clique has 8 GPUs, the other 4);
 *   <li>{@code elastic}: 3 × 1 GPU of which 2 make it run, {@code RestartMember}, packed into the
 *       fewest racks;
 *   <li>{@code wide}, in half the seeds: drawn from the seed — 2 or 3 members of 1 or 2 GPUs,
 *       either policy, anywhere or in one clique, all members or 2 at least.
 * </ul>
 *
 * Chaos scales each within {@link Job#minReplicas} and {@link Job#maxReplicas}.
 */
final class Gangs {
  static final String GROUP = "workers";

  private Gangs() {}

  /**
   * One gang job.
   *
   * @param minMember empty: every replica
   */
  record Job(
      String name,
      int replicas,
      int gpus,
      Optional<Integer> minMember,
      MemberFailurePolicy policy,
      GangTopology topology) {

    Workload workload() {
      var claim =
          new ClaimTemplate(
              "gpu",
              new ResourceClaimSpec(
                  List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
      var group =
          new WorkerGroup(
                  GROUP,
                  replicas,
                  new TaskTemplate(
                      List.of(name), Map.of(), "exec", Optional.empty(), List.of(), Map.of()),
                  List.of(claim),
                  null)
              .withGang(new GangSpec(minMember, policy, topology));
      return new Workload(
          ObjectMeta.named(name),
          new WorkloadSpec(List.of(group), Optional.empty()),
          WorkloadStatus.EMPTY);
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
    // Half the seeds leave it out: the fleet then has room to spare (and the churn of replacements
    // and prepares that room makes), the other half is over-full and the gangs contend.
    return random.nextBoolean() ? List.of(ring, elastic, wide) : List.of(ring, elastic);
  }
}
