package dev.quartermaster.api.gang;

import java.util.Optional;

/**
 * Workers placed together or not at all: {@code minMember} of them (all replicas when unset) get
 * their devices in one decision, or none does and the gang holds nothing; members beyond {@code
 * minMember} (an elastic job's extra workers) are placed one by one once the gang is placed.
 *
 * <p>Given on a worker group, it makes that group a gang; given on a workload, it makes all the
 * workload's groups one gang, and each group's own {@code gang} may then give only its {@code
 * minMember} (its share). {@link WorkloadGangs} reads both into the gangs a workload has. Each
 * field stays empty unless written, so that validation can refuse one written where it does not
 * belong.
 *
 * @param minMember how many workers make the job run; empty: every replica
 * @param onMemberFailure what a failed member, or a member whose node is lost, does to the others;
 *     empty: {@link MemberFailurePolicy#RestartMember}
 * @param topology where on the fleet's topology the members may and should go; empty: anywhere
 */
public record GangSpec(
    Optional<Integer> minMember,
    Optional<MemberFailurePolicy> onMemberFailure,
    Optional<GangTopology> topology) {

  public static final GangSpec ALL =
      new GangSpec(Optional.empty(), Optional.empty(), Optional.empty());

  public GangSpec {
    minMember = minMember == null ? Optional.empty() : minMember;
    onMemberFailure = onMemberFailure == null ? Optional.empty() : onMemberFailure;
    topology = topology == null ? Optional.empty() : topology;
  }

  public GangSpec(
      Optional<Integer> minMember, MemberFailurePolicy onMemberFailure, GangTopology topology) {
    this(minMember, Optional.ofNullable(onMemberFailure), Optional.ofNullable(topology));
  }

  /** The members placed in one decision, for a group of {@code replicas}. */
  public int minMemberOf(int replicas) {
    return minMember.orElse(replicas);
  }

  /** What a member's failure does: as written, else {@link MemberFailurePolicy#RestartMember}. */
  public MemberFailurePolicy failurePolicy() {
    return onMemberFailure.orElse(MemberFailurePolicy.RestartMember);
  }

  /** Where the members may go: as written, else anywhere. */
  public GangTopology placement() {
    return topology.orElse(GangTopology.ANYWHERE);
  }
}
