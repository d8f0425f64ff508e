package dev.quartermaster.api.gang;

import java.util.List;
import java.util.Objects;

/**
 * One gang of a workload, as {@link WorkloadGangs} reads it from the spec: the members placed in
 * one decision, per group, and what the gang does when one fails and where it may go.
 *
 * @param name the group's name for a group's gang, {@link #WHOLE_WORKLOAD} for the workload's own
 * @param shares per group of the gang, in spec order, how many of its members the decision places
 * @param onMemberFailure what a failed member (of any of its groups) does to the others
 * @param topology where all its members may and should go
 */
public record Gang(
    String name, List<Share> shares, MemberFailurePolicy onMemberFailure, GangTopology topology) {
  /**
   * The name of the gang that spans a whole workload. A group's name is a DNS label, so it can
   * never be {@code *}: the workload's gang and a group's never share a name, in the allocator's
   * key ({@code gang/<workload>/*}), in a message or in a metric, and {@code *} reads as "every
   * group".
   */
  public static final String WHOLE_WORKLOAD = "*";

  /**
   * @param group a worker group's name
   * @param members how many of its members the gang's decision places: its {@code minMember},
   *     default all its replicas
   */
  public record Share(String group, int members) {
    public Share {
      Objects.requireNonNull(group, "group");
    }
  }

  public Gang {
    Objects.requireNonNull(name, "name");
    shares = List.copyOf(shares);
    Objects.requireNonNull(onMemberFailure, "onMemberFailure");
    Objects.requireNonNull(topology, "topology");
  }

  /** Whether it spans the whole workload (its groups are the workload's, all of them). */
  public boolean wholeWorkload() {
    return name.equals(WHOLE_WORKLOAD);
  }

  /** The members placed in one decision, over all its groups. */
  public int minMember() {
    return shares.stream().mapToInt(Share::members).sum();
  }

  /** The members of {@code group} placed in the one decision; 0 for a group not of this gang. */
  public int shareOf(String group) {
    return shares.stream()
        .filter(s -> s.group().equals(group))
        .mapToInt(Share::members)
        .findFirst()
        .orElse(0);
  }

  /** Whether {@code group} is one of its groups. */
  public boolean has(String group) {
    return shares.stream().anyMatch(s -> s.group().equals(group));
  }

  /** Its groups, in spec order. */
  public List<String> groups() {
    return shares.stream().map(Share::group).toList();
  }

  /** Whether one member's failure stops every member of every one of its groups. */
  public boolean restartsAsOne() {
    return onMemberFailure == MemberFailurePolicy.RestartGang;
  }
}
