package dev.quartermaster.agent.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.mig.PreparedSlice;
import dev.quartermaster.agent.mps.MpsPaths;
import dev.quartermaster.agent.names.SafeNames;
import dev.quartermaster.api.codec.PooledJson;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.mps.MpsVariables;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.core.files.BootScopedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes one CDI spec per prepared claim into a CDI directory: kind {@code quartermaster.dev/gpu},
 * one device {@code <claim-uid>-<device>} per GPU with its own device node, and the control nodes
 * ({@code nvidiactl}, {@code nvidia-uvm}, ...) once in the spec-level {@code containerEdits}, which
 * a runtime applies whenever any device of the spec is asked for. Every node carries {@code type
 * c}, major and minor, so that the runtime's device cgroup allows exactly these (I3). A claim's
 * IMEX channels go into a second spec, kind {@code quartermaster.dev/channel}, one device {@code
 * <claim-uid>-channel-<N>} per channel with its {@code /dev/nvidia-caps-imex-channels/channel<N>}
 * node (nothing else: the GPU nodes come with a GPU claim).
 *
 * <p>Environment goes only on devices, never at spec level: a spec-level value is applied for any
 * one device of the claim and overwritten by another claim's, so a container given three claims, or
 * one GPU of four, was told something else than what it got. Each device carries its own entries,
 * whose keys no other device on the node uses ({@link DeviceVariables}). Written at the minimum
 * {@code cdiVersion} its fields need, atomically (temp file, then rename), so a runtime scanning
 * the directory never sees half a spec. Not fsynced ({@link BootScopedFile}): a spec is for
 * containers of this boot, and after a power loss the agent drops the earlier boot's claims and
 * removes their specs ({@code ClaimPreparer#removeOrphanSpecs}), so a wait for the disk per spec
 * (two, with the directory's) would protect nothing.
 *
 * <p>Names are validated before anything is written, and the file's resolved path must be directly
 * inside the directory: a claim uid or device name that would escape it is an {@link
 * dev.quartermaster.agent.names.UnsafeNameException}.
 *
 * <p>A removed spec's file is kept as a spare ({@code .spare-<n>}, at most {@value #SPARES}; no
 * {@code .json}, so no CDI reader looks at it) and renamed into place for the next write instead of
 * creating a file: on a file system that searches for a free inode, ext4 without a journal stepping
 * over every inode freed in the last minute, creating the file of each prepare took a twentieth of
 * the whole end-to-end bench's CPU. Rewriting a spare is as atomic as a new file: it is written
 * under its hidden temp name and only then renamed over the spec. The spares are counted under this
 * writer's lock.
 */
public final class CdiSpecWriter implements ClaimSpecs {
  private static final ObjectMapper JSON = PooledJson.mapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static final int SPARES = 16;

  private final Path dir;
  private final MpsPaths mps;

  /** Spares {@code .spare-0} to {@code .spare-<spares - 1>} are there (left by this writer). */
  private int spares;

  public CdiSpecWriter(Path dir) {
    this(dir, MpsPaths.DEFAULT);
  }

  /** Specs in {@code dir}; an MPS share's names the pipes of its GPU's daemon under {@code mps}. */
  public CdiSpecWriter(Path dir, MpsPaths mps) {
    this.dir = dir.toAbsolutePath().normalize();
    this.mps = mps;
  }

  public Path dir() {
    return dir;
  }

  @Override
  public List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<VerifiedNode> controlNodes)
      throws IOException {
    return write(claim, gpus, channels, List.of(), controlNodes);
  }

  @Override
  public List<String> write(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<DiscoveredChannel> channels,
      List<PreparedSlice> slices,
      List<VerifiedNode> controlNodes)
      throws IOException {
    if (gpus.isEmpty() && channels.isEmpty() && slices.isEmpty()) {
      throw new IllegalArgumentException(
          "claim " + claim + ": a CDI spec needs at least one device");
    }
    var uid = SafeNames.requireClaimUid(claim.uid());
    gpus.forEach(g -> SafeNames.requireDeviceName(g.name()));
    channels.forEach(c -> SafeNames.requireDeviceName(c.name()));
    slices.forEach(s -> SafeNames.requireDeviceName(s.name()));
    var names = new ArrayList<String>();
    if (!gpus.isEmpty() || !slices.isEmpty()) {
      writeSpec(specPath(DiscoveredGpu.CLASS, uid), render(claim, gpus, slices, controlNodes, mps));
      gpus.forEach(g -> names.add(CdiNames.qualified(DiscoveredGpu.CLASS, uid, g.name())));
      slices.forEach(s -> names.add(CdiNames.qualified(DiscoveredGpu.CLASS, uid, s.name())));
    }
    if (!channels.isEmpty()) {
      writeSpec(specPath(DiscoveredChannel.CLASS, uid), renderChannels(claim, channels));
      channels.forEach(c -> names.add(CdiNames.qualified(DiscoveredChannel.CLASS, uid, c.name())));
    }
    return names;
  }

  private void writeSpec(Path path, byte[] bytes) throws IOException {
    if (!Files.isDirectory(
        dir)) { // asked first: on an existing directory the JDK throws and catches twice
      Files.createDirectories(dir);
    }
    var temp = dir.resolve("." + path.getFileName() + ".tmp");
    synchronized (this) {
      if (spares > 0) {
        spares--;
        try {
          Files.move(spare(spares), temp, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
          // removed by someone else: the write creates the file
        }
      }
    }
    BootScopedFile.replace(path, temp, bytes); // truncates a spare, creates a file otherwise
  }

  private Path spare(int n) {
    return dir.resolve(".spare-" + n);
  }

  /**
   * The channel spec's bytes: one device per channel with its own node and its own entry naming the
   * claim ({@code QUARTERMASTER_IMEX_CHANNEL_5_CLAIM_UID=<uid>}).
   */
  public static byte[] renderChannels(ClaimRef claim, List<DiscoveredChannel> channels) {
    var names = new ArrayList<String>();
    var nodes = new ArrayList<CdiDeviceNode>();
    var devices = NODES.arrayNode();
    for (var channel : channels) {
      var name = CdiNames.deviceName(claim.uid(), channel.name());
      names.add(name);
      var node = CdiDeviceNode.of(channel.node());
      nodes.add(node);
      var device = devices.addObject();
      device.put("name", name);
      var edits = device.putObject("containerEdits");
      edits.putArray("env").add(DeviceVariables.channelClaimUid(channel.id(), claim.uid()));
      edits.putArray("deviceNodes").add(deviceNode(node));
    }
    var spec = NODES.objectNode();
    spec.put("cdiVersion", CdiVersion.minimumFor(names, nodes));
    spec.put("kind", CdiNames.kind(DiscoveredChannel.CLASS));
    spec.set("devices", devices);
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render CDI spec", e);
    }
  }

  /** The spec's bytes (exposed for tests that validate it against the CDI schema). */
  public static byte[] render(
      ClaimRef claim, List<DiscoveredGpu> gpus, List<VerifiedNode> controlNodes) {
    return render(claim, gpus, List.of(), controlNodes, MpsPaths.DEFAULT);
  }

  /**
   * As above, with MIG slices: each its own device with its parent's node and its capability nodes
   * (a process on a slice opens all three), and its own entries carrying the MIG device's UUID.
   */
  public static byte[] render(
      ClaimRef claim,
      List<DiscoveredGpu> gpus,
      List<PreparedSlice> slices,
      List<VerifiedNode> controlNodes,
      MpsPaths mps) {
    var names = new ArrayList<String>();
    var nodes = new ArrayList<CdiDeviceNode>();
    var devices = NODES.arrayNode();
    for (var gpu : gpus) {
      var name = CdiNames.deviceName(claim.uid(), gpu.name());
      names.add(name);
      var node = CdiDeviceNode.of(gpu.node());
      nodes.add(node);
      var device = devices.addObject();
      device.put("name", name);
      var edits = device.putObject("containerEdits");
      var share = MpsShares.parse(gpu.name());
      if (share.isPresent()) {
        shareEdits(edits, gpu, share.get(), claim, mps);
        edits.putArray("deviceNodes").add(deviceNode(node));
        continue;
      }
      var replica = TimeSlices.parse(gpu.name());
      edits
          .putArray("env")
          .add(
              replica.isPresent()
                  ? DeviceVariables.replicaUuid(gpu.index(), replica.get().replica(), gpu.uuid())
                  : DeviceVariables.gpuUuid(gpu.index(), gpu.uuid()))
          .add(
              replica.isPresent()
                  ? DeviceVariables.replicaClaimUid(
                      gpu.index(), replica.get().replica(), claim.uid())
                  : DeviceVariables.gpuClaimUid(gpu.index(), claim.uid()));
      edits.putArray("deviceNodes").add(deviceNode(node));
    }
    for (var slice : slices) {
      var name = CdiNames.deviceName(claim.uid(), slice.name());
      names.add(name);
      var device = devices.addObject();
      device.put("name", name);
      var edits = device.putObject("containerEdits");
      int gpu = slice.instance().gpu();
      int start = slice.instance().placement().start();
      edits
          .putArray("env")
          .add(DeviceVariables.sliceUuid(gpu, start, slice.instance().uuid()))
          .add(DeviceVariables.sliceClaimUid(gpu, start, claim.uid()));
      var deviceNodes = edits.putArray("deviceNodes");
      for (var n : concat(slice.slice().parent().node(), slice.capabilityNodes())) {
        var node = CdiDeviceNode.of(n);
        nodes.add(node);
        deviceNodes.add(deviceNode(node));
      }
    }
    var spec = NODES.objectNode();
    var common = NODES.objectNode();
    if (!controlNodes.isEmpty()) {
      var shared = common.putArray("deviceNodes");
      for (var n : controlNodes) {
        var node = CdiDeviceNode.of(n);
        nodes.add(node);
        shared.add(deviceNode(node));
      }
    }
    spec.put("cdiVersion", CdiVersion.minimumFor(names, nodes));
    spec.put("kind", CdiNames.kind(DiscoveredGpu.CLASS));
    spec.set("devices", devices);
    if (!common.isEmpty()) {
      spec.set("containerEdits", common);
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render CDI spec", e);
    }
  }

  /**
   * An MPS share's edits: its own entries, and what makes its processes clients of its GPU's MPS
   * daemon with the share's limits: the daemon's pipe directory (named and mounted), the compute
   * percentage and the memory cap. The cap names device 0: a client sees its share's GPU only.
   */
  private static void shareEdits(
      ObjectNode edits, DiscoveredGpu gpu, MpsShare share, ClaimRef claim, MpsPaths mps) {
    var pipe = mps.pipe(share.gpu()).toString();
    edits
        .putArray("env")
        .add(DeviceVariables.shareUuid(gpu.index(), share, gpu.uuid()))
        .add(DeviceVariables.shareClaimUid(gpu.index(), share, claim.uid()))
        .add(MpsVariables.PIPE_DIRECTORY + "=" + pipe)
        .add(MpsVariables.LOG_DIRECTORY + "=" + mps.log(share.gpu()));
    var env = (com.fasterxml.jackson.databind.node.ArrayNode) edits.get("env");
    share.limits().forEach(env::add);
    var mount = edits.putArray("mounts").addObject();
    mount.put("hostPath", pipe);
    mount.put("containerPath", pipe);
    mount.putArray("options").add("rbind").add("rw");
  }

  private static List<VerifiedNode> concat(VerifiedNode first, List<VerifiedNode> rest) {
    var out = new ArrayList<VerifiedNode>();
    out.add(first);
    out.addAll(rest);
    return out;
  }

  private static ObjectNode deviceNode(CdiDeviceNode n) {
    var node = NODES.objectNode();
    node.put("path", n.path());
    if (n.hasHostPath()) {
      node.put("hostPath", n.hostPath());
    }
    node.put("type", n.type());
    node.put("major", n.major());
    node.put("minor", n.minor());
    node.put("permissions", n.permissions());
    return node;
  }

  @Override
  public void remove(String uid) throws IOException {
    SafeNames.requireClaimUid(uid);
    if (!Files.isDirectory(dir)) {
      return;
    }
    for (var deviceClass : List.of(DiscoveredGpu.CLASS, DiscoveredChannel.CLASS)) {
      var file = specPath(deviceClass, uid);
      // Not fsynced either way: a spec a power loss brings back is an orphan then.
      synchronized (this) {
        if (spares < SPARES) {
          try {
            Files.move(
                file,
                spare(spares),
                StandardCopyOption.ATOMIC_MOVE); // replaces an earlier agent's spare
            spares++;
          } catch (NoSuchFileException e) {
            // this claim has no spec of this class
          }
          continue;
        }
      }
      Files.deleteIfExists(file);
    }
  }

  @Override
  public Set<String> claimUids() throws IOException {
    var out = new TreeSet<String>();
    if (Files.isDirectory(dir)) {
      for (var file : ours()) {
        out.add(uidOf(file));
      }
    }
    return out;
  }

  /**
   * Where the spec of class {@code deviceClass} for {@code uid} lives; never outside {@link #dir}.
   */
  public Path specPath(String deviceClass, String uid) {
    var path = dir.resolve(CdiNames.specFileName(deviceClass, uid)).normalize();
    if (!dir.equals(path.getParent())) {
      throw new IllegalArgumentException("CDI spec path " + path + " escapes " + dir);
    }
    return path;
  }

  private List<Path> ours() throws IOException {
    try (var files = Files.list(dir)) {
      return files
          .filter(
              f -> {
                var n = f.getFileName().toString();
                return n.startsWith(CdiNames.VENDOR + "-")
                    && n.endsWith(".json")
                    && n.indexOf('_') > 0;
              })
          .toList();
    }
  }

  private static String uidOf(Path file) {
    var n = file.getFileName().toString();
    return n.substring(n.indexOf('_') + 1, n.length() - ".json".length());
  }
}
