package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.core.files.FileTrees;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The controller side of the hostpath plugin: volumes as directories, capacity accounting, and
 * per-node attachments with a bounded set of device names each.
 *
 * <ul>
 *   <li>A volume's id is its name (checked to be a plain directory name), so CreateVolume is
 *       idempotent by name across restarts with nothing more to remember.
 *   <li>Each node has {@code deviceSlots} device names, {@code /dev/xvdb} upward, as EBS does; an
 *       attachment takes the lowest free one and hands it to the node in the publish context under
 *       {@link #DEVICE_KEY}. A node with none left is RESOURCE_EXHAUSTED.
 *   <li>Known nodes are this plugin's own node and every node plugin that has a state file in the
 *       same state directory (each node plugin writes one at start): ControllerPublish to any other
 *       id is NOT_FOUND.
 * </ul>
 *
 * <p>Every change is written to {@code controller.json} before the call answers, so a restarted
 * controller remembers volumes and attachments. One lock serializes the calls' bookkeeping; the
 * overlap detection of {@link CallGate} is about calls in flight, not this lock.
 */
public final class HostpathController {

  /** The publish-context key that carries the attachment's device name. */
  public static final String DEVICE_KEY = "device";

  /** The volume-context key that carries the volume's directory. */
  public static final String PATH_KEY = "path";

  /** Size of a volume whose request names none. */
  public static final long DEFAULT_VOLUME_BYTES = 1L << 30;

  static final Set<AccessMode> SUPPORTED_MODES =
      EnumSet.of(
          AccessMode.SingleNodeWriter,
          AccessMode.SingleNodeReaderOnly,
          AccessMode.MultiNodeReaderOnly);

  private final HostpathConfig config;
  private final StateFile<ControllerState> file;
  private final ReentrantLock lock = new ReentrantLock();
  private ControllerState state;

  HostpathController(HostpathConfig config) {
    this.config = config;
    this.file = new StateFile<>(config.controllerStateFile(), ControllerState.class);
    this.state = file.load().orElse(ControllerState.EMPTY);
  }

  /**
   * CreateVolume; {@code limitBytes} 0 means no limit, {@code requiredBytes} 0 means the plugin's
   * choice.
   */
  public CreatedVolume createVolume(
      String name,
      long requiredBytes,
      long limitBytes,
      List<VolumeAccess> capabilities,
      Map<String, String> parameters) {
    var call = CsiCall.CreateVolume;
    Args.pathSafe(call, "name", name);
    if (capabilities.isEmpty()) {
      throw Args.invalid(call, "volume_capabilities is required");
    }
    var modes = EnumSet.noneOf(AccessMode.class);
    for (var c : capabilities) {
      checkSupported(call, c);
      modes.add(c.mode());
    }
    if (requiredBytes < 0 || limitBytes < 0) {
      throw new CsiException(call, CsiCode.OUT_OF_RANGE, "capacity_range must not be negative");
    }
    if (limitBytes > 0 && requiredBytes > limitBytes) {
      throw new CsiException(
          call,
          CsiCode.OUT_OF_RANGE,
          "capacity_range.required_bytes " + requiredBytes + " exceeds limit_bytes " + limitBytes);
    }
    long size =
        requiredBytes > 0
            ? requiredBytes
            : limitBytes > 0 ? Math.min(limitBytes, DEFAULT_VOLUME_BYTES) : DEFAULT_VOLUME_BYTES;
    lock.lock();
    try {
      var existing = state.volumes().get(name);
      if (existing != null) {
        var fits =
            existing.capacityBytes() >= requiredBytes
                && (limitBytes == 0 || existing.capacityBytes() <= limitBytes);
        if (!fits
            || !existing.modes().containsAll(modes)
            || !existing.parameters().equals(parameters)) {
          throw new CsiException(
              call,
              CsiCode.ALREADY_EXISTS,
              "volume "
                  + name
                  + " exists with "
                  + existing.capacityBytes()
                  + " bytes, modes "
                  + existing.modes()
                  + ", parameters "
                  + existing.parameters()
                  + "; the request is not compatible with it");
        }
        return created(existing);
      }
      if (size > config.capacityBytes()) {
        // Can never fit, whatever is deleted: the range is out of what this plugin supports.
        throw new CsiException(
            call,
            CsiCode.OUT_OF_RANGE,
            "volume of "
                + size
                + " bytes exceeds the plugin's whole capacity of "
                + config.capacityBytes());
      }
      if (size > available()) {
        throw new CsiException(
            call,
            CsiCode.RESOURCE_EXHAUSTED,
            "volume of " + size + " bytes does not fit: " + available() + " bytes available");
      }
      var dir = volumeDir(name);
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new CsiException(
            call, CsiCode.INTERNAL, "cannot create " + dir + ": " + e.getMessage());
      }
      var volume = new VolumeRecord(name, name, size, modes, parameters, Map.of());
      commit(withVolume(volume));
      return created(volume);
    } finally {
      lock.unlock();
    }
  }

  /**
   * DeleteVolume: an unknown id is success; a volume still attached anywhere is
   * FAILED_PRECONDITION.
   */
  public void deleteVolume(String volumeId) {
    var call = CsiCall.DeleteVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    lock.lock();
    try {
      var volume = state.volumes().get(volumeId);
      if (volume == null) {
        return;
      }
      if (!volume.attachments().isEmpty()) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume "
                + volumeId
                + " is still published to node(s) "
                + volume.attachments().keySet());
      }
      // Forget first, then remove the files: a crash in between leaves a stray directory, never a
      // remembered volume without its directory.
      var volumes = new HashMap<>(state.volumes());
      volumes.remove(volumeId);
      commit(new ControllerState(volumes));
      deleteTree(volumeDir(volumeId));
    } finally {
      lock.unlock();
    }
  }

  /**
   * ControllerPublishVolume: attaches the volume to the node and returns the device it took there.
   */
  public Map<String, String> controllerPublish(
      String volumeId, String nodeId, VolumeAccess access, boolean readOnly) {
    var call = CsiCall.ControllerPublishVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    Args.required(call, "node_id", nodeId);
    checkSupported(call, access);
    lock.lock();
    try {
      var volume = state.volumes().get(volumeId);
      if (volume == null) {
        throw new CsiException(call, CsiCode.NOT_FOUND, "volume " + volumeId + " does not exist");
      }
      if (!knownNodes().contains(nodeId)) {
        throw new CsiException(
            call, CsiCode.NOT_FOUND, "node " + nodeId + " is not known to this plugin");
      }
      if (!volume.modes().contains(access.mode())) {
        throw new CsiException(
            call,
            CsiCode.INVALID_ARGUMENT,
            "volume " + volumeId + " was created for " + volume.modes() + ", not " + access.mode());
      }
      var existing = volume.attachments().get(nodeId);
      if (existing != null) {
        if (existing.readOnly() != readOnly) {
          throw new CsiException(
              call,
              CsiCode.ALREADY_EXISTS,
              "volume "
                  + volumeId
                  + " is published to node "
                  + nodeId
                  + " with readonly="
                  + existing.readOnly()
                  + ", not "
                  + readOnly);
        }
        return publishContext(existing);
      }
      if (!volume.multiNode() && !volume.attachments().isEmpty()) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume "
                + volumeId
                + " is single-node and published to node "
                + volume.attachments().keySet().iterator().next());
      }
      if (access.mode() == AccessMode.MultiNodeReaderOnly && !readOnly) {
        throw new CsiException(
            call, CsiCode.INVALID_ARGUMENT, "MULTI_NODE_READER_ONLY needs readonly=true");
      }
      var device =
          freeDevice(nodeId)
              .orElseThrow(
                  () ->
                      new CsiException(
                          call,
                          CsiCode.RESOURCE_EXHAUSTED,
                          "node "
                              + nodeId
                              + " has all "
                              + config.deviceSlots()
                              + " device names attached"));
      var attachment = new Attachment(device, readOnly);
      var attachments = new HashMap<>(volume.attachments());
      attachments.put(nodeId, attachment);
      commit(withVolume(volume.withAttachments(attachments)));
      return publishContext(attachment);
    } finally {
      lock.unlock();
    }
  }

  /**
   * ControllerUnpublishVolume: an empty node id detaches from every node; what is not attached is
   * success.
   */
  public void controllerUnpublish(String volumeId, String nodeId) {
    var call = CsiCall.ControllerUnpublishVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    lock.lock();
    try {
      var volume = state.volumes().get(volumeId);
      // An unknown volume or node can safely be regarded as unpublished (spec): success.
      if (volume == null || (!nodeId.isEmpty() && !volume.attachments().containsKey(nodeId))) {
        return;
      }
      var attachments = new HashMap<>(volume.attachments());
      if (nodeId.isEmpty()) {
        attachments.clear();
      } else {
        attachments.remove(nodeId);
      }
      commit(withVolume(volume.withAttachments(attachments)));
    } finally {
      lock.unlock();
    }
  }

  /**
   * ValidateVolumeCapabilities: NOT_FOUND for an unknown volume, else whether every capability is
   * supported.
   */
  public Validation validate(String volumeId, List<VolumeAccess> capabilities) {
    var call = CsiCall.ValidateVolumeCapabilities;
    Args.pathSafe(call, "volume_id", volumeId);
    if (capabilities.isEmpty()) {
      throw Args.invalid(call, "volume_capabilities is required");
    }
    lock.lock();
    try {
      var volume = state.volumes().get(volumeId);
      if (volume == null) {
        throw new CsiException(call, CsiCode.NOT_FOUND, "volume " + volumeId + " does not exist");
      }
      for (var c : capabilities) {
        if (c.block()) {
          return new Validation(false, "block access is not supported; volumes are directories");
        }
        if (!volume.modes().contains(c.mode())) {
          return new Validation(
              false, "volume was created for " + volume.modes() + ", not " + c.mode());
        }
      }
      return new Validation(true, "");
    } finally {
      lock.unlock();
    }
  }

  /**
   * ListVolumes, in id order. The token is the id to start after; one that names no position this
   * listing can continue from is ABORTED, as the spec says.
   */
  public VolumePage listVolumes(int maxEntries, String startingToken) {
    if (maxEntries < 0) {
      throw Args.invalid(CsiCall.ListVolumes, "max_entries must not be negative");
    }
    lock.lock();
    try {
      var ids = new ArrayList<>(state.volumes().keySet());
      int from = 0;
      if (!startingToken.isEmpty()) {
        try {
          from = Integer.parseInt(startingToken);
        } catch (NumberFormatException e) {
          from = -1;
        }
        if (from < 0 || from > ids.size()) {
          throw new CsiException(
              CsiCall.ListVolumes,
              CsiCode.ABORTED,
              "starting_token " + startingToken + " is not valid");
        }
      }
      int to = maxEntries == 0 ? ids.size() : Math.min(ids.size(), from + maxEntries);
      var entries = new ArrayList<VolumeEntry>();
      for (var id : ids.subList(from, to)) {
        var v = state.volumes().get(id);
        entries.add(
            new VolumeEntry(
                id, v.capacityBytes(), volumeContext(v), List.copyOf(v.attachments().keySet())));
      }
      return new VolumePage(entries, to < ids.size() ? Integer.toString(to) : "");
    } finally {
      lock.unlock();
    }
  }

  /**
   * GetCapacity for volumes with {@code capabilities}: none can be made with an unsupported one, so
   * the answer is then 0 (what the spec asks of a plugin that cannot provide those capabilities).
   */
  public long availableCapacity(List<VolumeAccess> capabilities) {
    for (var c : capabilities) {
      if (c.block() || !SUPPORTED_MODES.contains(c.mode())) {
        return 0;
      }
    }
    return availableCapacity();
  }

  /** GetCapacity: bytes not yet handed to a volume. */
  public long availableCapacity() {
    lock.lock();
    try {
      return available();
    } finally {
      lock.unlock();
    }
  }

  /** The largest volume CreateVolume could ever make. */
  public long maximumVolumeSize() {
    return config.capacityBytes();
  }

  private long available() {
    long used = 0;
    for (var v : state.volumes().values()) {
      used += v.capacityBytes();
    }
    return Math.max(0, config.capacityBytes() - used);
  }

  private CreatedVolume created(VolumeRecord v) {
    return new CreatedVolume(v.id(), v.capacityBytes(), volumeContext(v));
  }

  private Map<String, String> volumeContext(VolumeRecord v) {
    return Map.of(PATH_KEY, volumeDir(v.id()).toString());
  }

  private static Map<String, String> publishContext(Attachment a) {
    return Map.of(DEVICE_KEY, a.device());
  }

  private Optional<String> freeDevice(String nodeId) {
    var taken = new HashSet<String>();
    for (var v : state.volumes().values()) {
      var a = v.attachments().get(nodeId);
      if (a != null) {
        taken.add(a.device());
      }
    }
    for (int i = 0; i < config.deviceSlots(); i++) {
      var name = "/dev/xvd" + (char) ('b' + i);
      if (!taken.contains(name)) {
        return Optional.of(name);
      }
    }
    return Optional.empty();
  }

  private Set<String> knownNodes() {
    var nodes = new TreeSet<String>();
    nodes.add(config.nodeId());
    try (Stream<Path> files = Files.list(config.stateDir())) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(HostpathConfig.NODE_FILE_PREFIX) && n.endsWith(".json"))
          .map(
              n ->
                  n.substring(
                      HostpathConfig.NODE_FILE_PREFIX.length(), n.length() - ".json".length()))
          .forEach(nodes::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + config.stateDir(), e);
    }
    return nodes;
  }

  private static void checkSupported(CsiCall call, VolumeAccess access) {
    if (access.block()) {
      throw Args.invalid(call, "block access is not supported: hostpath volumes are directories");
    }
    if (!SUPPORTED_MODES.contains(access.mode())) {
      throw Args.invalid(
          call,
          "access mode "
              + access.mode()
              + " is not supported (supported: "
              + SUPPORTED_MODES
              + ")");
    }
  }

  private ControllerState withVolume(VolumeRecord v) {
    var volumes = new HashMap<>(state.volumes());
    volumes.put(v.id(), v);
    return new ControllerState(volumes);
  }

  /** Persists first: the answer a CO gets must survive our crash. */
  private void commit(ControllerState next) {
    file.save(next);
    state = next;
  }

  Path volumeDir(String id) {
    return config.volumesDir().resolve(id);
  }

  static void deleteTree(Path root) {
    try {
      FileTrees.delete(root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
