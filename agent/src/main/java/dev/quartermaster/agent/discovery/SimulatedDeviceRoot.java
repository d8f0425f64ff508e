package dev.quartermaster.agent.discovery;

import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated node's device root: the same {@code /dev} + {@code /proc} layout as a real host, so
 * that the real discovery, control-node check and container runtime run against it unchanged.
 *
 * <pre>
 * &lt;root&gt;/proc/driver/nvidia/gpus/&lt;bus&gt;/information   as the driver writes it, plus "Memory: &lt;bytes&gt;"
 * &lt;root&gt;/proc/devices                               "195 nvidia" (or nvidia-frontend), "&lt;n&gt; nvidia-uvm",
 *                                                   "&lt;n&gt; nvidia-caps-imex-channels" (unless left out), ...
 * &lt;root&gt;/dev/nvidia&lt;minor&gt;, nvidiactl, nvidia-uvm, nvidia-uvm-tools, [nvidia-modeset]
 * &lt;root&gt;/dev/nvidia-caps-imex-channels/channel&lt;N&gt;  IMEX channels 0..count-1 (default 2,048), as on a real node
 * &lt;root&gt;/sim/stand-ins                              the numbers those nodes really have ({@link StandInNumbering})
 * &lt;root&gt;/health/gpu-&lt;i&gt;                              "healthy", or "xid &lt;n&gt; &lt;text&gt;" (read by the health file source)
 * </pre>
 *
 * <p>The device nodes are real character devices made with {@code mknod}, using harmless host
 * devices as stand-ins ({@link StandIns}): a container given a node through CDI can open it, one
 * not given it gets "Operation not permitted" from the device cgroup, as with NVIDIA's nodes. Where
 * {@code mknod} is not permitted (not root), the nodes are regular files instead, {@link
 * #charDevices()} is false and {@link #fallbackReason()} says why; checks accept them, containers
 * cannot test with them.
 *
 * <p><b>Only root may reach the nodes.</b> A stand-in is an alias of a real host device (10:232 is
 * {@code /dev/kvm}, 10:257 {@code /dev/userfaultfd}): an alias anyone can open would hand every
 * local user a device the host keeps root-only. So the nodes are made 0600 and the root and its
 * {@code dev/} are 0700 (an older root found wider is tightened on {@link #open}, with a log line),
 * and the control-node creator recreates stand-ins with 0600 too. The same holds for the IMEX
 * channel nodes and their {@code dev/nvidia-caps-imex-channels/} directory (0700). Numbers no
 * driver serves (an unregistered major from the kernel's local/experimental ranges, which would
 * alias nothing) were considered and not taken: opening such a node fails with ENXIO, and the
 * device check opens every node a task is given, on the host and inside the container, and must see
 * a successful open where the device cgroup lets it through and "Operation not permitted" where it
 * does not; an unserved number would make every simulated task fail that check. Root can open the
 * real devices anyway, so a root-only alias grants nobody anything new.
 */
public final class SimulatedDeviceRoot {
  private static final Logger log = LoggerFactory.getLogger(SimulatedDeviceRoot.class);
  private final Path root;
  private final Map<String, NodeExpectation> standIns;
  private final List<String> gpuNames;
  private final int channels;
  private final Optional<String> fallbackReason;

  /** How many IMEX channels a simulated root has unless told otherwise: as many as a real node. */
  public static final int DEFAULT_CHANNELS = 2048;

  private SimulatedDeviceRoot(
      Path root,
      Map<String, NodeExpectation> standIns,
      List<String> gpuNames,
      int channels,
      Optional<String> fallbackReason) {
    this.root = root;
    this.standIns = Map.copyOf(standIns);
    this.gpuNames = List.copyOf(gpuNames);
    this.channels = channels;
    this.fallbackReason = fallbackReason;
  }

  public static Builder builder(Path root) {
    return new Builder(root);
  }

  /**
   * The simulated root at {@code dir} with {@code gpus} GPUs and every control node ({@code qm
   * up}'s nodes): built when {@code dir} holds no root yet, else opened as it is (so a restart
   * resumes the same devices, including a node someone removed on purpose). Nodes are real
   * character devices where {@code mknod} is permitted, else regular files ({@link
   * #fallbackReason()} says why).
   */
  public static SimulatedDeviceRoot ensure(Path dir, int gpus) throws IOException {
    return ensure(dir, gpus, DEFAULT_CHANNELS);
  }

  /**
   * As {@link #ensure(Path, int)}, with {@code channels} IMEX channels when the root is built now.
   */
  public static SimulatedDeviceRoot ensure(Path dir, int gpus, int channels) throws IOException {
    if (Files.exists(dir.resolve(Numbering.STAND_INS))) {
      return open(dir);
    }
    return builder(dir).gpus(gpus).channels(channels).build();
  }

  /**
   * As {@link #ensure(Path, int, int)}, with GPUs of {@code model} when the root is built now; an
   * existing root keeps the GPUs it has.
   */
  public static SimulatedDeviceRoot ensure(
      Path dir, int gpus, int channels, SimulatedGpuModel model) throws IOException {
    if (Files.exists(dir.resolve(Numbering.STAND_INS))) {
      return open(dir);
    }
    return builder(dir).gpus(gpus).channels(channels).model(model).build();
  }

  /**
   * Opens an existing simulated root (one {@link Builder#build()} made), reading its stand-in
   * numbers.
   */
  public static SimulatedDeviceRoot open(Path dir) throws IOException {
    var root = dir.toAbsolutePath();
    var numbering = StandInNumbering.read(root.resolve(Numbering.STAND_INS));
    restrict(root);
    var names = new ArrayList<String>();
    var gpusDir = root.resolve("proc/driver/nvidia/gpus");
    if (Files.isDirectory(gpusDir)) {
      try (var list = Files.list(gpusDir)) {
        long count = list.filter(Files::isDirectory).count();
        for (int i = 0; i < count; i++) {
          names.add("gpu-" + i);
        }
      }
    }
    boolean files =
        numbering.byFileName().values().stream().anyMatch(NodeExpectation::regularFileAccepted);
    int channels =
        (int)
            numbering.byFileName().keySet().stream()
                .filter(n -> n.startsWith(ImexChannels.DIR + "/"))
                .count();
    return new SimulatedDeviceRoot(
        root,
        numbering.byFileName(),
        names,
        channels,
        files ? Optional.of("the root was built with regular files") : Optional.empty());
  }

  public Path root() {
    return root;
  }

  public Path devDir() {
    return root.resolve("dev");
  }

  /** {@code gpu-0}, {@code gpu-1}, ... */
  public List<String> gpuNames() {
    return gpuNames;
  }

  /**
   * How many IMEX channels the root was built with ({@code channel0} .. {@code channel<count-1>}).
   */
  public int channelCount() {
    return channels;
  }

  /** {@code <root>/dev/nvidia-caps-imex-channels}. */
  public Path channelDir() {
    return devDir().resolve(ImexChannels.DIR);
  }

  /** Where channel {@code id}'s node is on this machine. */
  public Path channelPath(int id) {
    return devDir().resolve(ImexChannels.fileName(id));
  }

  /**
   * Whether the nodes are real character devices (else regular files; see {@link
   * #fallbackReason()}).
   */
  public boolean charDevices() {
    return fallbackReason.isEmpty();
  }

  /** Why the nodes are regular files, when they are. */
  public Optional<String> fallbackReason() {
    return fallbackReason;
  }

  /**
   * The number the node called {@code fileName} (e.g. {@code nvidia-uvm}, {@code nvidia0}) really
   * has.
   */
  public DeviceNumber standIn(String fileName) {
    var e = standIns.get(fileName);
    if (e == null) {
      throw new IllegalArgumentException("no stand-in for " + fileName + " in " + root);
    }
    return e.number();
  }

  public Path nodePath(ControlNode node) {
    return devDir().resolve(node.fileName());
  }

  /** Deletes a control node, as if its module were unloaded or udev had not run yet. */
  public void removeNode(ControlNode node) throws IOException {
    Files.deleteIfExists(nodePath(node));
  }

  /** Creates a control node with its stand-in number (what nvidia-modprobe does on a real host). */
  public void restoreNode(ControlNode node) throws IOException {
    Files.deleteIfExists(nodePath(node));
    makeNode(nodePath(node), standIns.get(node.fileName()));
  }

  /** Puts a regular file where the node should be (a broken install; the check must name it). */
  public void replaceWithRegularFile(ControlNode node) throws IOException {
    Files.deleteIfExists(nodePath(node));
    Files.writeString(nodePath(node), "not a device\n");
  }

  /**
   * Makes a device node at {@code path} (under this root's {@code dev/}) with the stand-in number
   * of the node called {@code like}: how simulated MIG capability nodes get a number that opens.
   */
  public void makeNodeLike(Path path, String like) throws IOException {
    var e = standIns.get(like);
    if (e == null) {
      throw new IllegalArgumentException("no stand-in for " + like + " in " + root);
    }
    Files.deleteIfExists(path);
    makeNode(path, e);
  }

  /** The product name GPU {@code index}'s {@code information} file gives, as NVML would. */
  public Optional<String> model(int index) throws IOException {
    var gpusDir = root.resolve("proc/driver/nvidia/gpus");
    if (!Files.isDirectory(gpusDir)) {
      return Optional.empty();
    }
    try (var list = Files.list(gpusDir)) {
      for (var dir : (Iterable<Path>) list.sorted()::iterator) {
        var info =
            GpuInformation.parse(
                Files.readString(dir.resolve("information"), StandardCharsets.UTF_8));
        if (info.field(GpuInformation.DEVICE_MINOR).equals(Optional.of(Integer.toString(index)))) {
          return info.field(GpuInformation.MODEL);
        }
      }
    }
    return Optional.empty();
  }

  /** Writes {@code <root>/health/<gpu>}: "healthy" or "xid 79 GPU has fallen off the bus". */
  public void setHealth(String gpuName, String content) throws IOException {
    if (!gpuNames.contains(gpuName)) {
      throw new IllegalArgumentException("no GPU " + gpuName + " in " + root);
    }
    Files.writeString(
        root.resolve("health").resolve(gpuName), content + "\n", StandardCharsets.UTF_8);
  }

  private static void makeNode(Path path, NodeExpectation e) throws IOException {
    if (e.regularFileAccepted()) {
      OwnerOnly.createFile(path);
      Files.writeString(path, "stand-in for a character device " + e.number() + "\n");
    } else {
      Mknod.charDevice(path, e.number(), Mknod.SIMULATED_MODE);
    }
  }

  /**
   * Makes a root (perhaps built by an older version with 0666 nodes in a 0755 tree) root-only: the
   * root and dev/ 0700, every node in dev/ without group and other bits.
   */
  private static void restrict(Path root) throws IOException {
    OwnerOnly.directory(root)
        .ifPresent(t -> log.warn("simulated device root was open to other users; tightened {}", t));
    var dev = root.resolve("dev");
    if (!Files.isDirectory(dev)) {
      return;
    }
    OwnerOnly.directory(dev)
        .ifPresent(
            t -> log.warn("simulated device directory was open to other users; tightened {}", t));
    restrictNodes(dev);
  }

  private static void restrictNodes(Path dir) throws IOException {
    try (var nodes = Files.list(dir)) {
      for (var node : (Iterable<Path>) nodes::iterator) {
        if (Files.isSymbolicLink(node)) {
          continue;
        }
        if (Files.isDirectory(node, LinkOption.NOFOLLOW_LINKS)) {
          OwnerOnly.directory(node)
              .ifPresent(
                  t ->
                      log.warn(
                          "simulated device directory was open to other users; tightened {}", t));
          restrictNodes(node);
          continue;
        }
        var perms = Files.getPosixFilePermissions(node, LinkOption.NOFOLLOW_LINKS);
        var kept = EnumSet.noneOf(PosixFilePermission.class);
        kept.addAll(perms);
        kept.retainAll(OwnerOnly.FILE);
        if (!kept.equals(perms)) {
          Files.setPosixFilePermissions(node, kept);
          log.warn(
              "simulated device node {} was open to other users; now {}",
              node,
              java.nio.file.attribute.PosixFilePermissions.toString(kept));
        }
      }
    }
  }

  /**
   * Builds a root; every option has a realistic default (2 H100s, all control nodes, driver 550+).
   */
  public static final class Builder {
    private final Path root;
    private int gpus = 2;
    private String model = SimulatedGpuModel.H100.productName();
    private long memoryBytes = SimulatedGpuModel.H100.memoryBytes();
    private final Set<ControlNode> omitted = EnumSet.noneOf(ControlNode.class);
    private boolean modeset = true;
    private String driverName = ProcDevices.NVIDIA;
    private long uvmMajor = 509;
    private int channels = DEFAULT_CHANNELS;
    private boolean imexChannelsMajor = true;
    private boolean forceRegularFiles;

    private Builder(Path root) {
      this.root = root.toAbsolutePath();
    }

    public Builder gpus(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("GPU count must not be negative: " + count);
      }
      this.gpus = count;
      return this;
    }

    /** GPUs of {@code model} instead of the default H100s. */
    public Builder model(SimulatedGpuModel model) {
      return model(model.productName(), model.memoryBytes());
    }

    public Builder model(String model, long memoryBytes) {
      this.model = model;
      this.memoryBytes = memoryBytes;
      return this;
    }

    /**
     * How many IMEX channel nodes to make, {@code channel0} .. {@code channel<count-1>} (default
     * 2,048).
     */
    public Builder channels(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("channel count must not be negative: " + count);
      }
      this.channels = count;
      return this;
    }

    /**
     * Leaves {@code nvidia-caps-imex-channels} out of {@code proc/devices} (a driver without IMEX
     * channels): the channel nodes are still made, and discovery must find none.
     */
    public Builder withoutImexChannelsMajor() {
      this.imexChannelsMajor = false;
      return this;
    }

    /** Leaves these control nodes out of {@code dev/} (their stand-in numbers are still listed). */
    public Builder without(ControlNode... nodes) {
      omitted.addAll(List.of(nodes));
      return this;
    }

    /** Whether the optional {@code nvidia-modeset} node exists (default yes). */
    public Builder modeset(boolean present) {
      this.modeset = present;
      return this;
    }

    /**
     * {@code nvidia} (drivers 550.40+) or {@code nvidia-frontend} (older), as /proc/devices names
     * major 195.
     */
    public Builder driverName(String name) {
      if (!name.equals(ProcDevices.NVIDIA) && !name.equals(ProcDevices.NVIDIA_FRONTEND)) {
        throw new IllegalArgumentException(
            "driver name must be nvidia or nvidia-frontend: " + name);
      }
      this.driverName = name;
      return this;
    }

    /** Regular files instead of character devices, even where mknod would work. */
    public Builder regularFiles() {
      this.forceRegularFiles = true;
      return this;
    }

    public SimulatedDeviceRoot build() throws IOException {
      OwnerOnly.directory(root);
      var dev = root.resolve("dev");
      OwnerOnly.directory(dev);
      Files.createDirectories(root.resolve("sim"));
      var health = Files.createDirectories(root.resolve("health"));
      var gpusDir = Files.createDirectories(root.resolve("proc/driver/nvidia/gpus"));
      Files.writeString(root.resolve("proc/devices"), procDevices(), StandardCharsets.UTF_8);

      var names = new ArrayList<String>();
      for (int i = 0; i < gpus; i++) {
        var bus = String.format("0000:%02x:00.0", 0x18 + 0x10 * i);
        var dir = Files.createDirectories(gpusDir.resolve(bus));
        Files.writeString(dir.resolve("information"), information(i, bus), StandardCharsets.UTF_8);
        names.add("gpu-" + i);
        Files.writeString(health.resolve("gpu-" + i), "healthy\n");
      }

      Optional<String> fallback =
          forceRegularFiles ? Optional.of("regular files were asked for") : Optional.empty();
      var numbers = StandIns.available();
      int needed = ControlNode.values().length + Math.min(gpus + channels, 1);
      if (fallback.isEmpty() && numbers.size() < needed) {
        fallback =
            Optional.of(
                "this host registers only "
                    + numbers.size()
                    + " usable stand-in devices in /proc/misc, "
                    + needed
                    + " needed");
      }
      var standIns = assign(numbers, fallback.isPresent());
      if (fallback.isEmpty()) {
        try {
          Mknod.charDevice(
              dev.resolve(".probe"),
              standIns.get(ControlNode.NVIDIACTL.fileName()).number(),
              Mknod.SIMULATED_MODE);
          Files.delete(dev.resolve(".probe"));
        } catch (IOException e) {
          Files.deleteIfExists(dev.resolve(".probe"));
          fallback = Optional.of("mknod is not permitted here (" + e.getMessage() + ")");
          standIns = assign(numbers, true);
        }
      }
      Files.writeString(
          root.resolve(Numbering.STAND_INS),
          StandInNumbering.render(standIns),
          StandardCharsets.UTF_8);
      for (var node : ControlNode.values()) {
        boolean present =
            !omitted.contains(node) && (node != ControlNode.NVIDIA_MODESET || modeset);
        if (present) {
          makeNode(dev.resolve(node.fileName()), standIns.get(node.fileName()));
        }
      }
      for (int i = 0; i < gpus; i++) {
        makeNode(dev.resolve("nvidia" + i), standIns.get("nvidia" + i));
      }
      if (channels > 0) {
        OwnerOnly.directory(dev.resolve(ImexChannels.DIR));
        for (int i = 0; i < channels; i++) {
          makeNode(dev.resolve(ImexChannels.fileName(i)), standIns.get(ImexChannels.fileName(i)));
        }
      }
      return new SimulatedDeviceRoot(root, standIns, names, channels, fallback);
    }

    /**
     * Control nodes take the first distinct stand-ins; GPUs, then channels, share the rest
     * round-robin.
     */
    private Map<String, NodeExpectation> assign(List<DeviceNumber> numbers, boolean files) {
      var pool = new ArrayList<>(numbers);
      // Without a usable host list the numbers only matter for what a spec would carry.
      for (long minor = 240; pool.size() < ControlNode.values().length + 1; minor++) {
        pool.add(new DeviceNumber(StandIns.MISC_MAJOR, minor));
      }
      var out = new LinkedHashMap<String, NodeExpectation>();
      int next = 0;
      for (var node : ControlNode.values()) {
        out.put(node.fileName(), new NodeExpectation(pool.get(next++), files));
      }
      int gpuPool = pool.size() - next;
      for (int i = 0; i < gpus; i++) {
        out.put("nvidia" + i, new NodeExpectation(pool.get(next + i % gpuPool), files));
      }
      for (int i = 0; i < channels; i++) {
        out.put(
            ImexChannels.fileName(i),
            new NodeExpectation(pool.get(next + (gpus + i) % gpuPool), files));
      }
      return out;
    }

    private String procDevices() {
      return """
          Character devices:
            1 mem
            4 /dev/vc/0
            4 tty
            4 ttyS
            5 /dev/tty
            5 /dev/console
            5 /dev/ptmx
            7 vcs
           10 misc
           13 input
          %d %s
          %d nvidia-uvm
          %d nvidia-caps
          %s226 drm

          Block devices:
            7 loop
            8 sd
          259 blkext
          """
          .formatted(
              DeviceNumbers.NVIDIA_MAJOR,
              driverName,
              uvmMajor,
              uvmMajor + 2,
              imexChannelsMajor
                  ? (uvmMajor + 1) + " " + ProcDevices.NVIDIA_CAPS_IMEX_CHANNELS + "\n"
                  : "");
    }

    private String information(int i, String bus) {
      return """
          Model:           %s
          IRQ:             %d
          GPU UUID:        GPU-%08x-5a1e-4d0c-9e3b-%012x
          Video BIOS:      96.00.99.00.01
          Bus Type:        PCIe
          DMA Size:        52 bits
          DMA Mask:        0xfffffffffffff
          Bus Location:    %s
          Device Minor:    %d
          GPU Excluded:    No
          Memory:          %d
          """
          .formatted(model, 130 + i, 0x51a7e000 + i, (long) i, bus, i, memoryBytes);
    }
  }
}
