package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.host.DeviceHolders;
import dev.quartermaster.agent.host.ProcDeviceHolders;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.claims.InMemoryClaimSource;
import dev.quartermaster.kubelet.claims.KubeClaim;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A node for the tests: a simulated device root with two GPUs (regular-file nodes), a state
 * directory, a CDI directory and the kubelet's two directories, all under one short /tmp directory
 * (a Unix socket path has at most 107 bytes); the real plugin on them, and clients to its sockets.
 * Claims A and B are both allocated gpu-0, as after a force-deleted pod's replacement.
 */
final class PluginFixture implements AutoCloseable {
  static final String NODE = "node-1";
  static final String DEVICE = "gpu-0";
  static final KubeClaim A =
      new KubeClaim("default", "train-a", "0a0a0a0a-0000-4000-8000-00000000000a");
  static final KubeClaim B =
      new KubeClaim("default", "train-b", "0b0b0b0b-0000-4000-8000-00000000000b");

  final Path dir;
  final FixedClockEnv env = new FixedClockEnv();
  final InMemoryClaimSource claims = new InMemoryClaimSource();
  final SimulatedDeviceRoot root;
  private final ClaimSource source;
  private final DeviceHolders holders;
  private final KubeletPluginConfig config;
  private final List<KubeletClient> clients = new ArrayList<>();
  private KubeletPlugin plugin;

  PluginFixture() {
    this(null);
  }

  /** With {@code source} instead of the in-memory claims (null: the in-memory ones). */
  PluginFixture(ClaimSource source) {
    this(source, ProcDeviceHolders.byPath());
  }

  /**
   * With {@code source} (null: the in-memory claims), asking {@code holders} who holds a device.
   */
  PluginFixture(ClaimSource source, DeviceHolders holders) {
    this(source, holders, PluginSharing.NONE, 2);
  }

  /** With {@code gpus} GPUs shared as {@code sharing} says, and the in-memory claims. */
  PluginFixture(PluginSharing sharing, int gpus) {
    this(null, ProcDeviceHolders.byPath(), sharing, gpus);
  }

  private PluginFixture(
      ClaimSource source, DeviceHolders holders, PluginSharing sharing, int gpus) {
    this.holders = holders;
    try {
      dir = Files.createTempDirectory(Path.of("/tmp"), "qmkp");
      root =
          SimulatedDeviceRoot.builder(dir.resolve("root"))
              .gpus(gpus)
              .channels(2)
              .regularFiles()
              .build();
      config =
          new KubeletPluginConfig(
              KubeletPluginConfig.DEFAULT_DRIVER,
              NODE,
              dir.resolve("state"),
              dir.resolve("reg"),
              dir.resolve("plugins/gpu"),
              dir.resolve("cdi"),
              DeviceRoot.at(root.root()),
              () -> new NvmlLoad.Unavailable("tests read a simulated device root"),
              "boot-1",
              env,
              ClaimLedger.DEFAULT_TOMBSTONE_TTL,
              OsHelperProcesses.DEFAULT_COMMAND,
              sharing);
      allocate(A, DEVICE);
      allocate(B, DEVICE);
      this.source = source == null ? claims : source;
      plugin = KubeletPlugin.start(config, this.source, holders);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void allocate(KubeClaim claim, String... devices) {
    claims.allocate(
        claim,
        java.util.Arrays.stream(devices)
            .map(d -> new AllocatedDevice(NODE, d, List.of("gpu")))
            .toList());
  }

  /** Records that {@code claim} is allocated {@code devices} as they are. */
  void allocate(KubeClaim claim, List<AllocatedDevice> devices) {
    claims.allocate(claim, devices);
  }

  KubeletPlugin plugin() {
    return plugin;
  }

  KubeletPluginConfig config() {
    return config;
  }

  /** A new client of the DRA socket, in {@code version}. */
  KubeletCalls kubelet(KubeletClient.Version version) {
    return connect(config.draSocket()).dra(version);
  }

  KubeletClient connect(Path socket) {
    var client = KubeletClient.connect(socket);
    clients.add(client);
    return client;
  }

  /** A raw channel to {@code socket}, for stubs the calls above do not cover. */
  io.grpc.Channel connectRaw(Path socket) {
    return connect(socket).channel();
  }

  /** The plugin process ends (its sockets go) and a new one starts on the same directories. */
  void restart() throws IOException {
    plugin.close();
    plugin = KubeletPlugin.start(config, source, holders);
  }

  /**
   * The uids of the claims that have a CDI spec on disk now: what a container runtime would use.
   */
  Set<String> specsOnDisk() {
    try {
      return new CdiSpecWriter(config.cdiDir()).claimUids();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    for (var c : clients) {
      c.close();
    }
    plugin.close();
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
