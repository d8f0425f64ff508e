package dev.quartermaster.control.domain;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.domain.ComputeDomainStatus.Member;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeConditions;
import dev.quartermaster.control.cluster.Conditions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

/**
 * What a compute domain's status should say, from the nodes and claims the controller sees: a pure
 * function, so every rule is tested without a cluster.
 *
 * <ul>
 *   <li>A node is a <em>member</em> when its agent lists the domain in {@code
 *       status.computeDomains} (which the agent derives from its ledger: a claim naming the domain
 *       is prepared there) or reports a daemon for it (it is joining).
 *   <li>A member's daemon is ready when its agent reports it {@code Ready} <em>and</em> the agent
 *       is alive ({@code AgentReady=True}): a dead agent's last word is not a running daemon.
 *   <li>The domain is {@code Ready} when at least {@code numNodes} members are ready; when more
 *       nodes than {@code numNodes} joined (its claims were prepared on more nodes than it asked
 *       for), its message says so and names them, rather than a bare {@code 2/1}.
 *   <li>{@code claims} lists the claims that name the domain; the in-use finalizer goes only when
 *       the domain is being deleted and none of them is allocated or prepared anywhere.
 * </ul>
 *
 * @param status the status to write (equal to the current one when nothing changed)
 * @param releaseFinalizer the domain is being deleted and no claim that may have joined it names it
 *     any more
 */
public record DomainPlan(ComputeDomainStatus status, boolean releaseFinalizer) {

  public static DomainPlan of(
      ComputeDomain domain, List<Node> nodes, List<ResourceClaim> claims, Instant now) {
    var name = domain.metadata().name();
    var previous = new HashMap<String, Member>();
    domain.status().nodes().forEach(m -> previous.put(m.node(), m));
    var members = new ArrayList<Member>();
    var waiting = new ArrayList<String>();
    for (var node :
        nodes.stream().sorted(Comparator.comparing(n -> n.metadata().name())).toList()) {
      var nodeName = node.metadata().name();
      var daemon = node.status().daemonOf(name);
      if (!node.status().computeDomains().contains(name) && daemon.isEmpty()) {
        continue;
      }
      boolean agentAlive =
          Condition.find(node.status().conditions(), NodeConditions.AGENT_READY)
              .map(Condition::isTrue)
              .orElse(false);
      boolean ready = agentAlive && daemon.map(d -> d.ready()).orElse(false);
      var before = Optional.ofNullable(previous.get(nodeName));
      var since =
          before
              .filter(m -> m.daemonReady() == ready)
              .flatMap(Member::since)
              .or(() -> Optional.of(now));
      members.add(new Member(nodeName, ready, since));
      if (!ready) {
        waiting.add(
            nodeName
                + ": "
                + (!agentAlive
                    ? "agent not ready"
                    : daemon
                        .map(
                            d ->
                                "daemon "
                                    + d.state()
                                    + (d.message().isEmpty() ? "" : " (" + d.message() + ")"))
                        .orElse("no daemon reported yet")));
      }
    }
    var naming =
        claims.stream()
            .filter(c -> c.spec().computeDomain().map(name::equals).orElse(false))
            .toList();
    var users = naming.stream().map(c -> c.metadata().name()).sorted().toList();
    // A claim holds the domain once it may have joined: allocated, or prepared on some node. One
    // that
    // never was never will be (no claim joins a domain being deleted), so it must not keep the
    // domain, and its workload, waiting on each other for ever.
    var holders =
        naming.stream()
            .filter(DomainPlan::mayHaveJoined)
            .map(c -> c.metadata().name())
            .sorted()
            .toList();
    int outside = users.size() - holders.size();
    long ready = members.stream().filter(Member::daemonReady).count();
    int wanted = domain.spec().numNodes();
    Condition condition;
    if (domain.metadata().isDeleting()) {
      condition =
          Conditions.of(
              DomainConditions.READY,
              false,
              "Deleting",
              (holders.isEmpty()
                      ? "no allocated claim names the domain; deleting it"
                      : "waiting for "
                          + holders.size()
                          + " allocated claim(s) that name it: "
                          + shortList(holders))
                  + (outside == 0
                      ? ""
                      : "; " + outside + " unallocated claim(s) name it and will not join it"));
    } else if (ready >= wanted && members.size() > wanted) {
      condition =
          Conditions.of(
              DomainConditions.READY,
              true,
              "MembersReady",
              ready
                  + " member nodes have a ready daemon: the domain spans "
                  + members.size()
                  + " nodes ("
                  + shortList(members.stream().map(Member::node).toList())
                  + "), more than its numNodes "
                  + wanted
                  + ", since claims naming it were prepared there; raise numNodes to "
                  + members.size()
                  + " if the job is meant to span them");
    } else if (ready >= wanted) {
      condition =
          Conditions.of(
              DomainConditions.READY,
              true,
              "MembersReady",
              ready + "/" + wanted + " member nodes have a ready daemon");
    } else if (members.isEmpty()) {
      condition =
          Conditions.of(
              DomainConditions.READY,
              false,
              "NoMembers",
              "0/"
                  + wanted
                  + " member nodes: nodes join when a claim"
                  + " naming the domain is prepared there ("
                  + users.size()
                  + " claim(s) name it)");
    } else {
      condition =
          Conditions.of(
              DomainConditions.READY,
              false,
              "WaitingForMembers",
              ready
                  + "/"
                  + wanted
                  + " member nodes ready"
                  + (waiting.isEmpty() ? "" : "; " + shortList(waiting)));
    }
    var status =
        new ComputeDomainStatus(
            members, users, Conditions.set(domain.status().conditions(), condition, now));
    return new DomainPlan(
        status,
        domain.metadata().isDeleting()
            && holders.isEmpty()
            && domain.metadata().finalizers().contains(ComputeDomain.IN_USE_FINALIZER));
  }

  private static boolean mayHaveJoined(ResourceClaim c) {
    return c.status().allocation().isPresent() || !c.status().prepare().isEmpty();
  }

  private static String shortList(List<String> items) {
    return items.size() <= 5
        ? String.join(", ", items)
        : String.join(", ", items.subList(0, 5)) + " and " + (items.size() - 5) + " more";
  }
}
