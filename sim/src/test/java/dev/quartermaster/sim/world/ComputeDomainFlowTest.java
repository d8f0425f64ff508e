package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.domain.ComputeDomainStatus;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Compute domains over the whole cluster: real controllers and real agents in the simulation. */
class ComputeDomainFlowTest {
  private static final int CHANNELS = 16;

  @Test
  void aTwoNodeJobMakesItsDomainReadyWithBothNodesAsMembers() {
    var w = new WholeCluster(11, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(domain("nvlink-a", 2));
    w.api().create(job("train", "nvlink-a", 2, 4)); // 4 GPUs each: one worker per node
    w.env().advance(Duration.ofSeconds(60));

    var status = status(w, "nvlink-a");
    assertThat(status.nodes())
        .extracting(ComputeDomainStatus.Member::node)
        .containsExactly("node-1", "node-2");
    assertThat(status.readyNodes()).isEqualTo(2);
    assertThat(status.claims()).containsExactly("train-w-0-channels", "train-w-1-channels");
    assertThat(ready(w, "nvlink-a").isTrue()).isTrue();
    assertThat(ready(w, "nvlink-a").message()).isEqualTo("2/2 member nodes have a ready daemon");
  }

  @Test
  void aClaimNamingAMissingDomainWaitsWithThatReasonAndNoNodeJoinsUntilItExists() {
    var w = new WholeCluster(12, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(job("late", "later", 1, 1));
    w.env().advance(Duration.ofSeconds(60));

    var claim = w.api().get(Kinds.RESOURCE_CLAIM, "late-w-0-channels").orElseThrow();
    assertThat(claim.status().allocation()).isEmpty();
    var allocated =
        Condition.find(claim.status().conditions(), ClaimConditions.ALLOCATED).orElseThrow();
    assertThat(allocated.reason()).isEqualTo("ComputeDomainNotFound");
    assertThat(allocated.message()).contains("compute domain later does not exist");
    assertThat(w.api().list(Kinds.NODE).items())
        .allMatch(
            n -> n.status().computeDomains().isEmpty() && n.status().domainDaemons().isEmpty());

    w.api().create(domain("later", 1));
    w.env().advance(Duration.ofSeconds(60));
    assertThat(
            w.api().get(Kinds.RESOURCE_CLAIM, "late-w-0-gpu").orElseThrow().status().allocation())
        .isPresent();
    assertThat(
            w.api()
                .get(Kinds.RESOURCE_CLAIM, "late-w-0-channels")
                .orElseThrow()
                .status()
                .allocation())
        .isPresent();
    assertThat(ready(w, "later").isTrue()).isTrue();
  }

  @Test
  void aDomainInUseIsDeletedOnlyAfterItsLastClaimIsGone() {
    var w = new WholeCluster(13, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(domain("nvlink-a", 1));
    w.api().create(job("train", "nvlink-a", 1, 1));
    w.env().advance(Duration.ofSeconds(60));
    assertThat(ready(w, "nvlink-a").isTrue()).isTrue();

    w.api().delete(Kinds.COMPUTE_DOMAIN, "nvlink-a");
    w.env().advance(Duration.ofSeconds(30));
    var deleting = w.api().get(Kinds.COMPUTE_DOMAIN, "nvlink-a");
    assertThat(deleting).as("held by its claim").isPresent();
    assertThat(ready(w, "nvlink-a").reason()).isEqualTo("Deleting");
    assertThat(ready(w, "nvlink-a").message()).contains("train-w-0-channels");
    // The running worker keeps its node in the domain meanwhile.
    assertThat(w.api().list(Kinds.NODE).items())
        .anyMatch(n -> n.status().computeDomains().contains("nvlink-a"));

    w.api().delete(Kinds.WORKLOAD, "train");
    w.env().advance(Duration.ofSeconds(120));
    assertThat(w.api().get(Kinds.COMPUTE_DOMAIN, "nvlink-a"))
        .as("gone with its last claim")
        .isEmpty();
    assertThat(w.api().list(Kinds.NODE).items())
        .allMatch(n -> n.status().computeDomains().isEmpty());
  }

  @Test
  void aTaskStartsOnlyOnceItsDomainIsReadyOnAllItsNodes() {
    var w = new WholeCluster(14, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(domain("nvlink-a", 2));
    w.api().create(job("train", "nvlink-a", 1, 4)); // one rank: one member of two
    w.env().advance(Duration.ofSeconds(60));
    var waiting = w.api().get(Kinds.TASK, "train-w-0").orElseThrow().status();
    assertThat(waiting.phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(waiting.reason()).isEqualTo("WaitingForComputeDomain");
    assertThat(waiting.message())
        .contains("compute domain nvlink-a is not Ready: 1/2 member nodes ready");

    w.scale("train", 2); // the second rank brings the second member
    w.env().advance(Duration.ofSeconds(60));
    assertThat(w.api().list(Kinds.TASK).items())
        .hasSize(2)
        .allMatch(t -> t.status().phase() == TaskPhase.Running);
  }

  @Test
  void aDaemonThatDiesIsStartedAgainAndItsTaskIsToldWhileItIsDown() {
    var w = new WholeCluster(15, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(domain("nvlink-a", 1));
    w.api().create(job("train", "nvlink-a", 1, 1));
    w.env().advance(Duration.ofSeconds(60));
    var task = w.api().get(Kinds.TASK, "train-w-0").orElseThrow();
    assertThat(task.status().phase()).isEqualTo(TaskPhase.Running);
    var node = w.node(task.spec().node().orElseThrow());
    assertThat(domainReady(w).status()).isEqualTo(Condition.Status.True);

    node.host.helpers().failStarts("nvlink-a", true); // it dies, and cannot come back for now
    node.host.helpers().kill("nvlink-a");
    w.env().advance(Duration.ofSeconds(10));
    assertThat(domainReady(w).status()).isEqualTo(Condition.Status.False);
    assertThat(domainReady(w).reason()).isEqualTo("DaemonNotReady");
    assertThat(ready(w, "nvlink-a").isTrue())
        .as("the domain lost its only member's daemon")
        .isFalse();
    assertThat(w.api().get(Kinds.TASK, "train-w-0").orElseThrow().status().phase())
        .as("told, not killed")
        .isEqualTo(TaskPhase.Running);

    node.host.helpers().failStarts("nvlink-a", false);
    w.env().advance(Duration.ofSeconds(10));
    assertThat(domainReady(w).status()).isEqualTo(Condition.Status.True);
    assertThat(ready(w, "nvlink-a").isTrue()).isTrue();
    assertThat(node.host.helpers().log())
        .containsSubsequence("start nvlink-a", "died nvlink-a", "start nvlink-a");
  }

  @Test
  void eachTaskGetsItsOwnChannelsOnItsNodeAndADomainMadeLaterSetsHowMany() {
    var w = new WholeCluster(16, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(job("train", "nvlink-a", 4, 2)); // two ranks per node
    w.env().advance(Duration.ofSeconds(30));
    assertThat(
            w.api()
                .get(Kinds.RESOURCE_CLAIM, "train-w-0-channels")
                .orElseThrow()
                .spec()
                .requests()
                .getFirst()
                .count())
        .as("one channel while the domain is unknown")
        .isEqualTo(1);

    w.api()
        .create(
            new ComputeDomain(
                ObjectMeta.named("nvlink-a"),
                new ComputeDomainSpec(2, 3),
                ComputeDomainStatus.EMPTY));
    w.env().advance(Duration.ofSeconds(60));
    var held = new java.util.HashSet<String>();
    for (var task : w.api().list(Kinds.TASK).items()) {
      assertThat(task.status().phase()).isEqualTo(TaskPhase.Running);
      assertThat(task.spec().claims()).endsWith(task.metadata().name() + "-channels");
      var claim =
          w.api().get(Kinds.RESOURCE_CLAIM, task.metadata().name() + "-channels").orElseThrow();
      var allocation = claim.status().allocation().orElseThrow();
      assertThat(allocation.node()).isEqualTo(task.spec().node().orElseThrow());
      assertThat(allocation.devices())
          .hasSize(3)
          .allMatch(d -> d.device().startsWith("channel-"))
          .allMatch(d -> held.add(allocation.node() + "/" + d.device()));
      assertThat(claim.spec().computeDomain()).contains("nvlink-a");
    }
    assertThat(held).hasSize(12);
  }

  @Test
  void aChannelClaimIsPreparedOnlyOnceTheDomainDaemonOnItsNodeIsReady() {
    var w = new WholeCluster(17, 2, 4, CHANNELS, Variant.REAL);
    w.api().create(domain("nvlink-a", 1));
    for (var name : List.of("node-1", "node-2")) {
      w.node(name).host.helpers().holdStarting("nvlink-a", true);
    }
    w.api().create(job("train", "nvlink-a", 1, 1));
    w.env().advance(Duration.ofSeconds(60));
    var claim = w.api().get(Kinds.RESOURCE_CLAIM, "train-w-0-channels").orElseThrow();
    var node = claim.status().allocation().orElseThrow().node();
    var state = claim.status().prepare().get(node);
    assertThat(state.phase()).isEqualTo(dev.quartermaster.api.claim.PrepareState.Phase.Pending);
    assertThat(state.reason())
        .startsWith("the daemon of compute domain nvlink-a on this node is starting (pid ");
    assertThat(w.api().get(Kinds.TASK, "train-w-0").orElseThrow().status().phase())
        .isEqualTo(TaskPhase.Preparing);
    assertThat(w.node(node).host.helpers().running())
        .as("started, as the ledger wants")
        .containsExactly("nvlink-a");

    w.node(node).host.helpers().holdStarting("nvlink-a", false);
    w.env().advance(Duration.ofSeconds(10));
    assertThat(
            w.api()
                .get(Kinds.RESOURCE_CLAIM, "train-w-0-channels")
                .orElseThrow()
                .status()
                .prepare()
                .get(node)
                .phase())
        .isEqualTo(dev.quartermaster.api.claim.PrepareState.Phase.Prepared);
    assertThat(w.api().get(Kinds.TASK, "train-w-0").orElseThrow().status().phase())
        .isEqualTo(TaskPhase.Running);
  }

  @Test
  void channelsThroughAnotherDeviceClassStillNeedADomain() {
    var w = new WholeCluster(18, 1, 4, CHANNELS, Variant.REAL);
    w.api()
        .create(
            new dev.quartermaster.api.device.DeviceClass(
                ObjectMeta.named("imex"),
                new dev.quartermaster.api.device.DeviceClassSpec("channel", List.of()),
                dev.quartermaster.api.device.DeviceClassStatus.EMPTY));
    w.api()
        .create(
            new dev.quartermaster.api.claim.ResourceClaim(
                ObjectMeta.named("sneaky"),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("ch", "imex", 1, List.of())), Optional.empty()),
                dev.quartermaster.api.claim.ResourceClaimStatus.EMPTY));
    w.env().advance(Duration.ofSeconds(30));
    var claim = w.api().get(Kinds.RESOURCE_CLAIM, "sneaky").orElseThrow();
    assertThat(claim.status().allocation()).isEmpty();
    var allocated =
        Condition.find(claim.status().conditions(), ClaimConditions.ALLOCATED).orElseThrow();
    assertThat(allocated.reason()).isEqualTo("ChannelsNeedComputeDomain");
    assertThat(allocated.message())
        .isEqualTo(
            "claim sneaky request ch (device class imex) asks for IMEX channels,"
                + " which need a compute domain: set spec.computeDomain");
  }

  private static Condition domainReady(WholeCluster w) {
    return Condition.find(
            w.api().get(Kinds.TASK, "train-w-0").orElseThrow().status().conditions(),
            dev.quartermaster.agent.tasks.TaskSync.DOMAIN_READY)
        .orElseThrow();
  }

  private static ComputeDomain domain(String name, int nodes) {
    return new ComputeDomain(
        ObjectMeta.named(name), new ComputeDomainSpec(nodes), ComputeDomainStatus.EMPTY);
  }

  private static Workload job(String name, String domain, int replicas, int gpus) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", gpus, List.of())), Optional.empty()));
    var group = new WorkerGroup("w", replicas, template, List.of(claim), null);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.of(domain)),
        WorkloadStatus.EMPTY);
  }

  private static ComputeDomainStatus status(WholeCluster w, String name) {
    return w.api().get(Kinds.COMPUTE_DOMAIN, name).orElseThrow().status();
  }

  private static Condition ready(WholeCluster w, String name) {
    return Condition.find(status(w, name).conditions(), DomainConditions.READY).orElseThrow();
  }
}
