package dev.quartermaster.api.domain;

import dev.quartermaster.api.meta.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** @param nodes the member nodes and whether their helper daemon is ready */
public record ComputeDomainStatus(List<Member> nodes, List<Condition> conditions) {
  public static final ComputeDomainStatus EMPTY = new ComputeDomainStatus(List.of(), List.of());

  public ComputeDomainStatus {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  public record Member(String node, boolean daemonReady, Optional<Instant> since) {
    public Member {
      node = node == null ? "" : node;
      since = since == null ? Optional.empty() : since;
    }
  }
}
