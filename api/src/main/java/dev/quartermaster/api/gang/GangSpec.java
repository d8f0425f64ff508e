package dev.quartermaster.api.gang;

import java.util.Optional;

/**
 * A worker group whose workers are placed together or not at all: {@code minMember} of them (all
 * replicas when unset) get their devices in one decision, or none does and the group holds nothing;
 * members beyond {@code minMember} (an elastic job's extra workers) are placed one by one once the
 * gang is placed.
 *
 * @param minMember how many workers make the job run; empty: every replica
 * @param onMemberFailure what a failed member, or a member whose node is lost, does to the others
 * @param topology where on the fleet's topology the members may and should go
 */
public record GangSpec(
    Optional<Integer> minMember, MemberFailurePolicy onMemberFailure, GangTopology topology) {

  public static final GangSpec ALL = new GangSpec(Optional.empty(), null, null);

  public GangSpec {
    minMember = minMember == null ? Optional.empty() : minMember;
    onMemberFailure = onMemberFailure == null ? MemberFailurePolicy.RestartMember : onMemberFailure;
    topology = topology == null ? GangTopology.ANYWHERE : topology;
  }

  /** The members placed in one decision, for a group of {@code replicas}. */
  public int minMemberOf(int replicas) {
    return minMember.orElse(replicas);
  }
}
