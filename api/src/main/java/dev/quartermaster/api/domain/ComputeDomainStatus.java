package dev.quartermaster.api.domain;

import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the compute domain controller observed.
 *
 * @param nodes the member nodes and whether their daemon is ready
 * @param claims the claims that name this domain: what keeps nodes in it, and it from being deleted
 * @param conditions {@code Ready}: {@code numNodes} members have a ready daemon
 */
public record ComputeDomainStatus(
    List<Member> nodes, List<String> claims, List<Condition> conditions) {
  public static final ComputeDomainStatus EMPTY =
      new ComputeDomainStatus(List.of(), List.of(), List.of());

  public long readyNodes() {
    return nodes.stream().filter(Member::daemonReady).count();
  }

  public ComputeDomainStatus {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    claims = claims == null ? List.of() : List.copyOf(claims);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  public record Member(String node, boolean daemonReady, Optional<Instant> since) {
    public Member {
      node = node == null ? "" : node;
      since = since == null ? Optional.empty() : since;
    }
  }
}
