package dev.quartermaster.control.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.DomainDaemon;
import dev.quartermaster.api.node.DomainDaemon.DaemonState;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DomainPlanTest {
  private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");

  @Test
  void readyWhenNumNodesMembersHaveAReadyDaemonOnALiveAgent() {
    var plan =
        DomainPlan.of(
            domain(2),
            List.of(
                node("node-1", true, DaemonState.Ready),
                node("node-2", true, DaemonState.Ready),
                other("node-3")),
            List.of(),
            NOW);
    assertThat(plan.status().nodes())
        .extracting(ComputeDomainStatus.Member::node)
        .containsExactly("node-1", "node-2");
    assertThat(ready(plan).isTrue()).isTrue();
    assertThat(ready(plan).message()).isEqualTo("2/2 member nodes have a ready daemon");
  }

  /** Two nodes joined a domain of numNodes 1: said with the nodes, not as a bare 2/1. */
  @Test
  void moreMembersThanNumNodesIsSaid() {
    var plan =
        DomainPlan.of(
            domain(1),
            List.of(
                node("node-1", true, DaemonState.Ready), node("node-2", true, DaemonState.Ready)),
            List.of(),
            NOW);
    assertThat(ready(plan).isTrue()).isTrue();
    assertThat(ready(plan).message())
        .isEqualTo(
            "2 member nodes have a ready daemon: the domain spans 2 nodes (node-1, node-2), more"
                + " than its numNodes 1, since claims naming it were prepared there; raise numNodes"
                + " to 2 if the job is meant to span them");
    var shown = new ComputeDomain(domain(1).metadata(), domain(1).spec(), plan.status());
    assertThat(
            dev.quartermaster.api.table.KindTables.of(
                    dev.quartermaster.api.meta.Kinds.COMPUTE_DOMAIN, NOW)
                .row(shown, false)
                .get(1))
        .isEqualTo("2 (numNodes 1)");
  }

  @Test
  void aDeadAgentsDaemonDoesNotCountAsReady() {
    var plan =
        DomainPlan.of(
            domain(2),
            List.of(
                node("node-1", true, DaemonState.Ready), node("node-2", false, DaemonState.Ready)),
            List.of(),
            NOW);
    assertThat(plan.status().readyNodes()).isEqualTo(1);
    assertThat(ready(plan).reason()).isEqualTo("WaitingForMembers");
    assertThat(ready(plan).message()).isEqualTo("1/2 member nodes ready; node-2: agent not ready");
  }

  @Test
  void aRestartingDaemonIsNamedWithItsMessage() {
    var restarting = node("node-1", true, DaemonState.Restarting);
    var plan = DomainPlan.of(domain(1), List.of(restarting), List.of(), NOW);
    assertThat(ready(plan).message())
        .isEqualTo("0/1 member nodes ready; node-1: daemon Restarting (exited 137)");
  }

  @Test
  void withoutMembersItSaysHowNodesJoin() {
    var plan =
        DomainPlan.of(domain(2), List.of(other("node-1")), List.of(claim("c1", "nvlink-a")), NOW);
    assertThat(ready(plan).reason()).isEqualTo("NoMembers");
    assertThat(ready(plan).message())
        .contains("nodes join when a claim naming the domain is prepared there (1 claim(s)");
    assertThat(plan.status().claims()).containsExactly("c1");
  }

  @Test
  void aDeletedDomainIsReleasedOnlyWhenNoAllocatedClaimNamesIt() {
    var deleting = domain(1).withMetadata(domain(1).metadata().withDeletedAt(NOW));
    var held =
        DomainPlan.of(
            deleting, List.of(), List.of(allocated("c1", "nvlink-a"), claim("c2", "other")), NOW);
    assertThat(held.releaseFinalizer()).isFalse();
    assertThat(ready(held).reason()).isEqualTo("Deleting");
    assertThat(ready(held).message())
        .isEqualTo("waiting for 1 allocated claim(s) that name it: c1");

    assertThat(
            DomainPlan.of(deleting, List.of(), List.of(claim("c2", "other")), NOW)
                .releaseFinalizer())
        .isTrue();
    assertThat(DomainPlan.of(domain(1), List.of(), List.of(), NOW).releaseFinalizer())
        .as("not deleting")
        .isFalse();
  }

  /**
   * A worker replaced under a domain being deleted gets a claim that can never be allocated (no
   * claim joins a deleting domain): it must not hold the domain, or each waits for the other for
   * ever.
   */
  @Test
  void claimsThatNeverJoinedDoNotHoldADeletedDomain() {
    var deleting = domain(1).withMetadata(domain(1).metadata().withDeletedAt(NOW));
    var plan =
        DomainPlan.of(
            deleting, List.of(), List.of(claim("w-0", "nvlink-a"), claim("w-1", "nvlink-a")), NOW);
    assertThat(plan.releaseFinalizer()).isTrue();
    assertThat(ready(plan).message())
        .isEqualTo(
            "no allocated claim names the domain; deleting it; 2 unallocated claim(s) name it and will not join it");
    var prepared =
        claim("w-2", "nvlink-a")
            .withStatus(
                new ResourceClaimStatus(
                    Optional.empty(),
                    List.of(),
                    java.util.Map.of(
                        "node-1",
                        new dev.quartermaster.api.claim.PrepareState(
                            dev.quartermaster.api.claim.PrepareState.Phase.Prepared,
                            "",
                            List.of(),
                            Optional.empty())),
                    List.of()));
    assertThat(DomainPlan.of(deleting, List.of(), List.of(prepared), NOW).releaseFinalizer())
        .as("prepared somewhere: it may hold channels of the domain")
        .isFalse();
  }

  @Test
  void anUnchangedWorldGivesAnUnchangedStatus() {
    var nodes = List.of(node("node-1", true, DaemonState.Ready));
    var first = DomainPlan.of(domain(1), nodes, List.of(), NOW);
    var again =
        DomainPlan.of(domain(1).withStatus(first.status()), nodes, List.of(), NOW.plusSeconds(60));
    assertThat(again.status()).isEqualTo(first.status()); // no write when nothing changed
  }

  private static Condition ready(DomainPlan plan) {
    return Condition.find(plan.status().conditions(), DomainConditions.READY).orElseThrow();
  }

  private static ComputeDomain domain(int nodes) {
    var meta =
        new ObjectMeta(
            "nvlink-a",
            "uid",
            1,
            1,
            java.util.Map.of(),
            Optional.of(NOW),
            Optional.empty(),
            List.of(ComputeDomain.IN_USE_FINALIZER),
            Optional.empty());
    return new ComputeDomain(meta, new ComputeDomainSpec(nodes), ComputeDomainStatus.EMPTY);
  }

  private static Node node(String name, boolean agentReady, DaemonState daemon) {
    var conditions =
        List.of(
            new Condition(
                "AgentReady",
                agentReady ? Condition.Status.True : Condition.Status.False,
                agentReady ? "Heartbeat" : "HeartbeatMissed",
                "",
                Optional.empty()));
    var daemons =
        List.of(
            new DomainDaemon(
                "nvlink-a",
                daemon,
                Optional.of(4242L),
                1,
                daemon == DaemonState.Ready ? "" : "exited 137",
                Optional.of(NOW)));
    return new Node(
        ObjectMeta.named(name),
        NodeSpec.EMPTY,
        new NodeStatus(
            conditions, Optional.of(NOW), "boot", "v", List.of("nvlink-a"), List.of(), daemons));
  }

  private static Node other(String name) {
    return new Node(ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY);
  }

  private static ResourceClaim allocated(String name, String domain) {
    return claim(name, domain)
        .withStatus(
            new ResourceClaimStatus(
                Optional.of(
                    new dev.quartermaster.api.claim.Allocation(
                        "node-1",
                        List.of(
                            new dev.quartermaster.api.claim.Allocation.AllocatedDevice(
                                "ch", "channel-0")))),
                List.of(),
                java.util.Map.of(),
                List.of()));
  }

  private static ResourceClaim claim(String name, String domain) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(List.of(), Optional.of(domain)),
        ResourceClaimStatus.EMPTY);
  }
}
