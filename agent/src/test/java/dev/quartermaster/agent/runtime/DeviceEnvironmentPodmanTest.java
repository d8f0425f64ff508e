package dev.quartermaster.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.DiscoveryResult;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.core.env.SystemEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30 item 12, with a real podman: what a container is told about its devices is exactly what
 * it was given, over several claims and over part of a claim. The agent's own spec writer writes
 * the specs, podman applies them (and the runtime's composed {@code --env}), busybox's {@code env}
 * prints what the container sees. Skipped with the reason where podman or busybox is missing; under
 * {@code CI=true} that is a failure.
 */
class DeviceEnvironmentPodmanTest {
  private static final int TIMEOUT_S = 180;

  @TempDir Path dir;
  private final List<String> uids = new ArrayList<>();
  private SimulatedDeviceRoot sim;
  private List<DiscoveredGpu> gpus;
  private List<DiscoveredChannel> channels;
  private List<VerifiedNode> controlNodes;
  private CdiSpecWriter writer;
  private Path rootfs;
  private PodmanRuntime runtime;

  @BeforeEach
  void setUp() throws Exception {
    var why = PodmanSupport.unavailable();
    if (why.isPresent() && "true".equals(System.getenv("CI"))) {
      fail("podman tests cannot run (CI=true: a missing component fails): " + why.get());
    }
    assumeTrue(why.isEmpty(), () -> "podman tests skipped: " + why.orElse(""));
    sim = SimulatedDeviceRoot.builder(dir.resolve("node")).gpus(4).channels(8).build();
    assumeTrue(
        sim.charDevices(),
        () -> "needs character-device stand-ins: " + sim.fallbackReason().orElse(""));
    gpus = ((DiscoveryResult.Found) new ProcGpuDiscovery(sim.root()).discover()).gpus();
    channels = ImexChannels.scan(sim.root()).channels();
    controlNodes = ((ControlNodeStatus.Complete) new ControlNodeCheck(sim.root()).check()).nodes();
    // Debian's podman 4.3.1 has no --cdi-spec-dir: the specs go where it reads them, under claim
    // uids of their own, and are deleted after (not kept as the writer's spares in a shared
    // directory).
    writer = new CdiSpecWriter(PodmanSupport.CDI_DIR);
    rootfs = PodmanSupport.busyboxRootfs(dir.resolve("rootfs"));
    runtime = new PodmanRuntime(new SystemEnv(), PodmanSupport.options());
  }

  @AfterEach
  void removeSpecs() throws Exception {
    if (writer == null) {
      return;
    }
    for (var uid : uids) {
      for (var deviceClass : List.of(DiscoveredGpu.CLASS, DiscoveredChannel.CLASS)) {
        Files.deleteIfExists(writer.specPath(deviceClass, uid));
      }
    }
  }

  private String claim() {
    var uid = UUID.randomUUID().toString();
    uids.add(uid);
    return uid;
  }

  /** Writes {@code uid}'s specs; returns its CDI names. */
  private List<String> prepare(String uid, List<DiscoveredGpu> g, List<DiscoveredChannel> c)
      throws Exception {
    return writer.write(new ClaimRef(uid, "claim-" + uid.substring(0, 8)), g, c, controlNodes);
  }

  /** The environment a container given {@code devices} sees, through the podman runtime. */
  private Map<String, String> seenThroughTheRuntime(String name, List<String> devices)
      throws Exception {
    var task =
        runtime.start(
            new TaskLaunch(
                name,
                List.of("/bin/env"),
                Map.of(),
                devices,
                List.of(),
                new TaskImage.Rootfs(rootfs),
                dir.resolve(name + ".out")));
    assertThat(task.result().get(TIMEOUT_S, TimeUnit.SECONDS))
        .as(Files.readString(task.output()))
        .isInstanceOfSatisfying(TaskResult.Exited.class, e -> assertThat(e.code()).isZero());
    return deviceEnv(Files.readString(task.output()));
  }

  /** The environment under plain {@code podman run --device ...}: what the CDI specs alone say. */
  private Map<String, String> seenThroughCdiAlone(List<String> devices) throws Exception {
    var args = new ArrayList<>(PodmanSupport.options().command());
    args.addAll(List.of("run", "--rm", "--network", "none"));
    PodmanSupport.options().ulimits().forEach(u -> args.addAll(List.of("--ulimit", u)));
    devices.forEach(d -> args.addAll(List.of("--device", d)));
    args.addAll(List.of("--rootfs", rootfs.toString(), "/bin/env"));
    var p = new ProcessBuilder(args).redirectErrorStream(true).start();
    var out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return deviceEnv(out);
  }

  private static Map<String, String> deviceEnv(String output) {
    var env = new TreeMap<String, String>();
    for (var line : output.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0
          && (line.startsWith("QUARTERMASTER_")
              || line.startsWith("NVIDIA_")
              || line.startsWith("CUDA_"))) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  @Test
  void threeOneGpuClaimsSeeAllThreeClaimsValues() throws Exception {
    var a = claim();
    var b = claim();
    var c = claim();
    var devices = new ArrayList<String>();
    devices.addAll(prepare(a, gpus.subList(0, 1), List.of()));
    devices.addAll(prepare(b, gpus.subList(1, 2), List.of()));
    devices.addAll(prepare(c, gpus.subList(2, 3), List.of()));
    var u = gpus.stream().map(DiscoveredGpu::uuid).toList();
    var perDevice =
        Map.of(
            "QUARTERMASTER_GPU_0_UUID",
            u.get(0),
            "QUARTERMASTER_GPU_0_CLAIM_UID",
            a,
            "QUARTERMASTER_GPU_1_UUID",
            u.get(1),
            "QUARTERMASTER_GPU_1_CLAIM_UID",
            b,
            "QUARTERMASTER_GPU_2_UUID",
            u.get(2),
            "QUARTERMASTER_GPU_2_CLAIM_UID",
            c);

    // The specs alone: each device's own entries, nothing one claim could overwrite for another.
    assertThat(seenThroughCdiAlone(devices)).isEqualTo(perDevice);

    var seen = seenThroughTheRuntime("env-three", devices);
    var expected = new TreeMap<>(perDevice);
    String all = u.get(0) + "," + u.get(1) + "," + u.get(2);
    expected.putAll(
        Map.of(
            "QUARTERMASTER_GPU_UUIDS",
            all,
            "NVIDIA_VISIBLE_DEVICES",
            all,
            "CUDA_VISIBLE_DEVICES",
            all,
            "QUARTERMASTER_IMEX_CHANNELS",
            "",
            "QUARTERMASTER_CLAIM_UIDS",
            a + "," + b + "," + c));
    assertThat(seen).as("no QUARTERMASTER_CLAIM_UID: there are three").isEqualTo(expected);
  }

  @Test
  void aGpuClaimAndAChannelClaimKeepBoth() throws Exception {
    var g = claim();
    var ch = claim();
    var devices = new ArrayList<String>();
    devices.addAll(prepare(g, gpus.subList(0, 1), List.of()));
    var five = channels.stream().filter(c -> c.id() == 5).findFirst().orElseThrow();
    devices.addAll(prepare(ch, List.of(), List.of(five)));
    String uuid = gpus.getFirst().uuid();

    assertThat(seenThroughCdiAlone(devices))
        .isEqualTo(
            Map.of(
                "QUARTERMASTER_GPU_0_UUID",
                uuid,
                "QUARTERMASTER_GPU_0_CLAIM_UID",
                g,
                "QUARTERMASTER_IMEX_CHANNEL_5_CLAIM_UID",
                ch));

    var seen = seenThroughTheRuntime("env-gpu-channel", devices);
    assertThat(seen)
        .containsEntry("QUARTERMASTER_GPU_0_CLAIM_UID", g)
        .containsEntry("QUARTERMASTER_IMEX_CHANNEL_5_CLAIM_UID", ch)
        .containsEntry("QUARTERMASTER_CLAIM_UIDS", g + "," + ch)
        .containsEntry("QUARTERMASTER_GPU_UUIDS", uuid)
        .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid)
        .containsEntry("QUARTERMASTER_IMEX_CHANNELS", "5")
        .doesNotContainKey("QUARTERMASTER_CLAIM_UID");
  }

  @Test
  void oneDeviceOfAFourGpuClaimSeesExactlyThatOneUuid() throws Exception {
    var claim = claim();
    var names = prepare(claim, gpus, List.of());
    assertThat(names).hasSize(4);
    var one = names.get(2);
    String uuid = gpus.get(2).uuid();

    assertThat(seenThroughCdiAlone(List.of(one)))
        .isEqualTo(
            Map.of("QUARTERMASTER_GPU_2_UUID", uuid, "QUARTERMASTER_GPU_2_CLAIM_UID", claim));

    var seen = seenThroughTheRuntime("env-one-of-four", List.of(one));
    assertThat(seen)
        .isEqualTo(
            new TreeMap<>(
                Map.of(
                    "QUARTERMASTER_GPU_2_UUID",
                    uuid,
                    "QUARTERMASTER_GPU_2_CLAIM_UID",
                    claim,
                    "QUARTERMASTER_GPU_UUIDS",
                    uuid,
                    "NVIDIA_VISIBLE_DEVICES",
                    uuid,
                    "CUDA_VISIBLE_DEVICES",
                    uuid,
                    "QUARTERMASTER_IMEX_CHANNELS",
                    "",
                    "QUARTERMASTER_CLAIM_UIDS",
                    claim,
                    "QUARTERMASTER_CLAIM_UID",
                    claim)));
  }
}
