package dev.quartermaster.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.agent.checkpoint.StateDirLockedException;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent library against a real store (in-process SQLite + ObjectRegistry as the ApiClient):
 * registers its node, publishes its slice, prepares a claim allocated to it (status, CDI file,
 * finalizer), and makes a second claim for the same device wait, naming the first, until the first
 * is deleted. Waits are driven by watch events with a generous deadline (only a real hang fails
 * them), never by sleeping.
 */
class NodeAgentEndToEndTest {
  private static final String NODE = "node-1";

  @TempDir Path tmp;
  private SqliteStore store;
  private ApiClient api;
  private NodeAgent agent;
  private SimulatedDeviceRoot sim;

  @BeforeEach
  void setUp() throws Exception {
    store = SqliteStore.open(tmp.resolve("store.db"));
    // The agent's ledger is the node's own guard of I1: it must hold even if the store gave one
    // device to two claims. The real store refuses that (and claims created already allocated),
    // so these claims go straight into a registry without that guard.
    api = ObjectRegistry.withoutCrossObjectRules(store, new SystemEnv());
    sim = SimulatedDeviceRoot.builder(tmp.resolve("devroot")).gpus(2).build();
    agent = NodeAgent.start(config(api));
  }

  /** The agent's configuration, reaching the cluster through {@code through}. */
  private NodeAgentConfig config(ApiClient through) throws java.io.IOException {
    return NodeAgentConfig.of(
            through,
            NODE,
            tmp.resolve("state"),
            DeviceRoot.at(sim.root()),
            tmp.resolve("cdi"),
            new SystemEnv())
        .withBootId("e2e-boot")
        .withRescanPeriod(Duration.ofSeconds(1));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      AgentFixture.stop(agent);
    }
    store.close();
  }

  private static ResourceClaim claim(String name, String device) {
    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpus", "gpu", 1, List.of())), Optional.empty());
    var status =
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation(NODE, List.of(new Allocation.AllocatedDevice("gpus", device))));
    return new ResourceClaim(ObjectMeta.named(name), spec, status);
  }

  private static Optional<PrepareState> prepareState(ResourceClaim c) {
    return Optional.ofNullable(c.status().prepare().get(NODE));
  }

  @Test
  void preparesAClaimAndMakesTheNextOneForTheSameDeviceWaitUntilTheFirstIsDeleted()
      throws Exception {
    var node =
        await(
            Kinds.NODE,
            NODE,
            n ->
                n.filter(
                        x ->
                            Condition.find(x.status().conditions(), "AgentReady")
                                .map(Condition::isTrue)
                                .orElse(false))
                    .isPresent());
    assertThat(node.orElseThrow().status().bootId()).isEqualTo("e2e-boot");
    assertThat(node.orElseThrow().status().heartbeat()).isPresent();
    var slice = await(Kinds.DEVICE_SLICE, NODE, s -> s.isPresent());
    assertThat(slice.orElseThrow().spec().devices())
        .filteredOn(d -> d.deviceClass().equals("gpu"))
        .extracting(d -> d.name())
        .containsExactly("gpu-0", "gpu-1");
    assertThat(slice.orElseThrow().spec().devices().getFirst().attributes())
        .containsKey("uuid")
        .containsEntry("minor", "0");
    assertThat(node.orElseThrow().status().conditions())
        .anyMatch(c -> c.type().equals("DevicesReady") && c.isTrue());

    // Claim A, allocated to gpu-0 on this node, gets prepared.
    var a = api.create(claim("claim-a", "gpu-0"));
    var preparedA =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-a",
                c ->
                    c.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                        .isPresent())
            .orElseThrow();
    var uidA = a.metadata().uid();
    assertThat(prepareState(preparedA).orElseThrow().cdiDevices())
        .containsExactly("quartermaster.dev/gpu=" + uidA + "-gpu-0");
    assertThat(preparedA.metadata().finalizers()).contains("quartermaster.dev/agent-" + NODE);
    var specA = tmp.resolve("cdi").resolve("quartermaster.dev-gpu_" + uidA + ".json");
    assertThat(specA).exists();
    assertThat(new ObjectMapper().readTree(specA.toFile()).path("kind").asText())
        .isEqualTo("quartermaster.dev/gpu");

    // Claim B for the same device waits, and says for whom.
    var b = api.create(claim("claim-b", "gpu-0"));
    var waitingB =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-b",
                c ->
                    c.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Pending)
                        .isPresent())
            .orElseThrow();
    assertThat(prepareState(waitingB).orElseThrow().reason())
        .contains("gpu-0")
        .contains(uidA)
        .contains("claim-a");

    // A second agent on the same state directory is refused while this one runs.
    assertThatThrownBy(() -> NodeAgent.start(agent.config()))
        .isInstanceOf(StateDirLockedException.class)
        .hasMessageContaining("pid " + ProcessHandle.current().pid());

    // Deleting A: it stays (finalizer) until the agent let go, then vanishes, and B gets the
    // device.
    api.delete(Kinds.RESOURCE_CLAIM, "claim-a");
    await(Kinds.RESOURCE_CLAIM, "claim-a", Optional::isEmpty);
    var preparedB =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-b",
                c ->
                    c.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                        .isPresent())
            .orElseThrow();
    assertThat(prepareState(preparedB).orElseThrow().cdiDevices())
        .containsExactly("quartermaster.dev/gpu=" + b.metadata().uid() + "-gpu-0");
    assertThat(specA).doesNotExist();
    assertThat(tmp.resolve("cdi").resolve("quartermaster.dev-gpu_" + b.metadata().uid() + ".json"))
        .exists();

    var shown = new ByteArrayOutputStream();
    LedgerShow.run(tmp.resolve("state"), new PrintStream(shown, true, "UTF-8"));
    assertThat(shown.toString("UTF-8"))
        .contains(b.metadata().uid())
        .contains("PrepareCompleted")
        .contains(uidA)
        .contains("PrepareAborted");
  }

  @Test
  void aRestartedAgentKeepsWhatItPreparedAndUnpreparesWhatWasDeletedMeanwhile() throws Exception {
    api.create(claim("claim-c", "gpu-1"));
    var c =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-c",
                x ->
                    x.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                        .isPresent())
            .orElseThrow();
    var config = agent.config();
    agent.close();
    agent = null;
    api.delete(Kinds.RESOURCE_CLAIM, "claim-c"); // while the agent is down: the finalizer keeps it
    assertThat(api.get(Kinds.RESOURCE_CLAIM, "claim-c")).isPresent();
    agent = NodeAgent.start(config);
    await(Kinds.RESOURCE_CLAIM, "claim-c", Optional::isEmpty);
    assertThat(
            agent
                .preparer()
                .durable()
                .ledger()
                .snapshot()
                .get(c.metadata().uid())
                .orElseThrow()
                .holdsDevices())
        .isFalse();
    try (var files = Files.list(tmp.resolve("cdi"))) {
      assertThat(files)
          .noneMatch(f -> f.getFileName().toString().endsWith(".json")); // a spare may stay
    }
  }

  @Test
  void aLedgerThatLostAcknowledgedRecordsStopsTheAgentBeforeItTouchesAnything() throws Exception {
    var f = api.create(claim("claim-f", "gpu-0"));
    await(
        Kinds.RESOURCE_CLAIM,
        "claim-f",
        x ->
            x.flatMap(NodeAgentEndToEndTest::prepareState)
                .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                .isPresent());
    var spec = tmp.resolve("cdi").resolve("quartermaster.dev-gpu_" + f.metadata().uid() + ".json");
    assertThat(spec).exists();
    var config = agent.config();
    agent.close();
    agent = null;
    // Cut the journal at its last record boundary: no torn bytes, the kind of loss only the mark
    // shows.
    var journal = LedgerShow.journalFile(tmp.resolve("state"));
    var scan =
        dev.quartermaster.agent.checkpoint.LedgerJournal.scan(
            Files.readAllBytes(journal), journal.toString());
    try (var raf = new java.io.RandomAccessFile(journal.toFile(), "rw")) {
      raf.setLength(scan.frames().getLast().offset());
    }

    assertThatThrownBy(() -> NodeAgent.start(config))
        .isInstanceOf(dev.quartermaster.agent.checkpoint.CorruptCheckpointException.class)
        .hasMessageContaining(journal.toString())
        .hasMessageContaining("ACKNOWLEDGED_LOST");
    assertThat(spec).as("the CDI spec of the prepared claim is left alone").exists();
  }

  /**
   * Issue 43, item 17: {@code ledger.journal} and {@code ledger.journal.mark} deleted together
   * leave a ledger that cannot tell it lost anything. The cluster can: its claims say Prepared on
   * this node. The agent refuses to start, naming them, until the operator accepts the loss.
   */
  @Test
  void aJournalLostWhileTheClusterSaysClaimsArePreparedHereStopsTheStartUnlessAccepted()
      throws Exception {
    var g = api.create(claim("claim-g", "gpu-0"));
    var h = api.create(claim("claim-h", "gpu-1"));
    for (var name : List.of("claim-g", "claim-h")) {
      await(
          Kinds.RESOURCE_CLAIM,
          name,
          x ->
              x.flatMap(NodeAgentEndToEndTest::prepareState)
                  .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                  .isPresent());
    }
    var config = agent.config();
    agent.close();
    agent = null;
    var state = tmp.resolve("state");
    Files.delete(LedgerShow.journalFile(state));
    Files.delete(LedgerShow.markFile(state));

    assertThatThrownBy(() -> NodeAgent.start(config))
        .isInstanceOf(dev.quartermaster.agent.checkpoint.LostLedgerException.class)
        .hasMessageContaining("REFUSING TO START")
        .hasMessageContaining("2 claims are prepared on node " + NODE)
        .hasMessageContaining("claim-g (" + g.metadata().uid() + ")")
        .hasMessageContaining("claim-h (" + h.metadata().uid() + ")")
        .hasMessageContaining("--accept-lost-ledger");

    var forgotten =
        LedgerCrossCheck.check(
            api,
            NODE,
            "the ledger",
            dev.quartermaster.agent.ledger.LedgerState.EMPTY,
            List.of(),
            dev.quartermaster.agent.checkpoint.LostLedger.ACCEPT);
    assertThat(forgotten)
        .hasSize(2)
        .anySatisfy(f -> assertThat(f).startsWith("claim-g (" + g.metadata().uid() + ")"));
    agent =
        NodeAgent.start(
            config,
            new dev.quartermaster.agent.host.OsNodeHost(config),
            dev.quartermaster.agent.checkpoint.LostLedger.ACCEPT);
    assertThat(agent.config()).isEqualTo(config); // started: the operator accepted the loss
  }

  /**
   * Campaign seed 1128: the journal and mark deleted, and the one list of claims the cross-check
   * makes at start fails (the server was busy). The agent must not take that for "nothing prepared
   * here" and start from the ledger that lost them: the start fails, and the next one, with the
   * server answering, refuses naming them.
   */
  @Test
  void aJournalLostWhileTheServerCannotBeAskedStopsTheStartToo() throws Exception {
    var g = api.create(claim("claim-g", "gpu-0"));
    await(
        Kinds.RESOURCE_CLAIM,
        "claim-g",
        x ->
            x.flatMap(NodeAgentEndToEndTest::prepareState)
                .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                .isPresent());
    agent.close();
    agent = null;
    var state = tmp.resolve("state");
    Files.delete(LedgerShow.journalFile(state));
    Files.delete(LedgerShow.markFile(state));

    var failing = new java.util.concurrent.atomic.AtomicBoolean(true);
    var claimListFailsOnce =
        (ApiClient)
            java.lang.reflect.Proxy.newProxyInstance(
                ApiClient.class.getClassLoader(),
                new Class<?>[] {ApiClient.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("list")
                      && args[0] == Kinds.RESOURCE_CLAIM
                      && failing.getAndSet(false)) {
                    throw new dev.quartermaster.api.error.ApiException(
                        dev.quartermaster.api.error.ApiError.Reason.Unavailable, "server busy");
                  }
                  try {
                    return method.invoke(api, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    var config = config(claimListFailsOnce);
    assertThatThrownBy(() -> NodeAgent.start(config))
        .isInstanceOf(java.io.IOException.class)
        .isNotInstanceOf(dev.quartermaster.agent.checkpoint.LostLedgerException.class)
        .hasMessageContaining("NOT STARTING")
        .hasMessageContaining("server busy");
    assertThat(failing).isFalse();
    assertThatThrownBy(() -> NodeAgent.start(config))
        .isInstanceOf(dev.quartermaster.agent.checkpoint.LostLedgerException.class)
        .hasMessageContaining("claim-g (" + g.metadata().uid() + ")");
  }

  @Test
  void aClaimWaitsNamingTheMissingControlNodeAndItsSpecListsEveryNodeOnceItIsBack()
      throws Exception {
    sim.removeNode(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_UVM);
    var uvm = sim.nodePath(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_UVM).toString();
    await(
        Kinds.NODE,
        NODE,
        n ->
            n.flatMap(x -> Condition.find(x.status().conditions(), "DevicesReady"))
                .filter(c -> !c.isTrue() && c.message().contains(uvm))
                .isPresent());
    // Prepared at prepare time against the host's tree now: the claim waits, retryably, naming the
    // path.
    var d = api.create(claim("claim-d", "gpu-0"));
    var waiting =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-d",
                c ->
                    c.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Pending)
                        .isPresent())
            .orElseThrow();
    assertThat(prepareState(waiting).orElseThrow().reason()).contains("missing " + uvm);
    assertThat(agent.preparer().durable().ledger().snapshot().get(d.metadata().uid()))
        .isEmpty(); // nothing reserved

    sim.restoreNode(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_UVM);
    await(
        Kinds.RESOURCE_CLAIM,
        "claim-d",
        c ->
            c.flatMap(NodeAgentEndToEndTest::prepareState)
                .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                .isPresent());
    var spec =
        new ObjectMapper()
            .readTree(
                tmp.resolve("cdi")
                    .resolve("quartermaster.dev-gpu_" + d.metadata().uid() + ".json")
                    .toFile());
    assertThat(spec.path("containerEdits").path("deviceNodes"))
        .extracting(n -> n.path("path").asText())
        .contains("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
    assertThat(
            spec.path("devices")
                .get(0)
                .path("containerEdits")
                .path("deviceNodes")
                .get(0)
                .path("path")
                .asText())
        .isEqualTo("/dev/nvidia0");
  }

  @Test
  void preparedSpecsAreRewrittenWhenTheControlNodesChange() throws Exception {
    var e = api.create(claim("claim-e", "gpu-1"));
    await(
        Kinds.RESOURCE_CLAIM,
        "claim-e",
        c ->
            c.flatMap(NodeAgentEndToEndTest::prepareState)
                .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                .isPresent());
    var file = tmp.resolve("cdi").resolve("quartermaster.dev-gpu_" + e.metadata().uid() + ".json");
    assertThat(Files.readString(file)).contains("/dev/nvidia-modeset");
    // The optional modeset node goes away: the node stays ready, and the spec no longer lists it.
    sim.removeNode(dev.quartermaster.agent.discovery.ControlNode.NVIDIA_MODESET);
    ApiAwait.fileLacks(file, "/dev/nvidia-modeset");
    assertThat(Files.readString(file)).contains("/dev/nvidia-uvm");
  }

  /**
   * Issue 11: a claim for an IMEX channel the node publishes is prepared (before, the agent said
   * "device channel-0 is not on this node" and the task waited for ever), and its CDI spec carries
   * the channel's node with the number the simulated root gave it.
   */
  @Test
  void publishesItsImexChannelsAndPreparesAChannelClaim() throws Exception {
    var slice = await(Kinds.DEVICE_SLICE, NODE, s -> s.isPresent()).orElseThrow();
    var channels =
        slice.spec().devices().stream().filter(d -> d.deviceClass().equals("channel")).toList();
    assertThat(channels).hasSize(2048);
    assertThat(channels.getFirst().name()).isEqualTo("channel-0");
    assertThat(channels.getLast().name()).isEqualTo("channel-2047");
    assertThat(channels)
        .allSatisfy(
            d -> {
              assertThat(d.health()).isEqualTo(dev.quartermaster.api.device.Device.Health.Healthy);
              assertThat(d.attributes()).isEmpty();
            });
    await(
        Kinds.NODE,
        NODE,
        n ->
            n.flatMap(x -> Condition.find(x.status().conditions(), "DevicesReady"))
                .filter(c -> c.isTrue() && c.message().contains("2048 IMEX channels"))
                .isPresent());

    var spec =
        new ResourceClaimSpec(
            List.of(new DeviceRequest("channel", "channel", 1, List.of())), Optional.of("nvlink"));
    var status =
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation(NODE, List.of(new Allocation.AllocatedDevice("channel", "channel-7"))));
    var g = api.create(new ResourceClaim(ObjectMeta.named("claim-g"), spec, status));
    var prepared =
        await(
                Kinds.RESOURCE_CLAIM,
                "claim-g",
                c ->
                    c.flatMap(NodeAgentEndToEndTest::prepareState)
                        .filter(s -> s.phase() == PrepareState.Phase.Prepared)
                        .isPresent())
            .orElseThrow();
    var uid = g.metadata().uid();
    assertThat(prepareState(prepared).orElseThrow().cdiDevices())
        .containsExactly("quartermaster.dev/channel=" + uid + "-channel-7");
    var file =
        new ObjectMapper()
            .readTree(
                tmp.resolve("cdi").resolve("quartermaster.dev-channel_" + uid + ".json").toFile());
    var node = file.path("devices").get(0).path("containerEdits").path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps-imex-channels/channel7");
    assertThat(node.path("hostPath").asText()).isEqualTo(sim.channelPath(7).toString());
    var number = sim.standIn("nvidia-caps-imex-channels/channel7");
    assertThat(node.path("major").asLong()).isEqualTo(number.major());
    assertThat(node.path("minor").asLong()).isEqualTo(number.minor());
  }

  private <T extends ApiObject> Optional<T> await(
      Kind<T> kind, String name, Predicate<Optional<T>> condition) throws Exception {
    return ApiAwait.object(api, kind, name, condition);
  }
}
