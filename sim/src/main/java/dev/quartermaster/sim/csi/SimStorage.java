package dev.quartermaster.sim.csi;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The storage system behind one simulated CSI plugin, shared by its instances on every node (as an
 * EBS region is shared by every EC2 instance): volumes, which node each is attached to with which
 * "device name" (a bounded set per node, the EBS race), and what each node has staged and
 * published.
 *
 * <p>It counts what the real thing punishes: a destructive controller call that starts while
 * another is in flight on the plugin is an <em>overlap</em> (with {@code detectOverlap} it fails
 * ABORTED, as the hostpath plugin's {@code --detect-overlap} does); the start order of those calls
 * is logged so tests can check FIFO per plugin. All in one thread of virtual time: no locks.
 */
public final class SimStorage {
  /** How many attachments one node can take: device names xvdb..xvdq. */
  public static final int DEVICE_NAMES = 16;

  /** One call as it started: which, on what, from which submission order. */
  public record Started(CsiCall call, String volume, String node, long atNanos) {}

  private record Vol(String id, String name, long bytes, Map<String, String> attachedTo) {}

  /**
   * What a detach does to the node's own mounts of the volume: drops them, as pulling a block
   * device does (EBS), or keeps them, as a directory bound in place stays (hostpath, NFS). With the
   * second a fenced node keeps its publications until its agent unpublishes them, and an unstage is
   * refused while any is left.
   */
  public enum DetachEffect {
    DropsNodeMounts,
    KeepsNodeMounts
  }

  private final String plugin;
  private final boolean detectOverlap;
  private DetachEffect detachEffect = DetachEffect.DropsNodeMounts;
  private final Map<String, Vol> volumes = new LinkedHashMap<>();
  private final Map<String, Set<String>> staged = new HashMap<>();

  /** node|volume → target → read-only. */
  private final Map<String, Map<String, Boolean>> published = new HashMap<>();

  private final List<Started> log = new ArrayList<>();
  private int inFlight;
  private long overlaps;
  private long destructiveCalls;

  public SimStorage(String plugin, boolean detectOverlap) {
    this.plugin = plugin;
    this.detectOverlap = detectOverlap;
  }

  public String plugin() {
    return plugin;
  }

  public DetachEffect detachEffect() {
    return detachEffect;
  }

  public void detachEffect(DetachEffect effect) {
    detachEffect = effect;
  }

  /**
   * A destructive call begins; throws ABORTED on overlap when detecting. Pair with {@link #end}.
   */
  void begin(CsiCall call, String volume, String node, long nanos) {
    destructiveCalls++;
    log.add(new Started(call, volume, node, nanos));
    if (inFlight > 0) {
      overlaps++;
      if (detectOverlap) {
        throw new CsiException(
            call, CsiCode.ABORTED, "overlapping controller call on plugin " + plugin);
      }
    }
    inFlight++;
  }

  void end() {
    inFlight--;
  }

  CreatedVolume create(String name, long bytes) {
    var existing = volumes.values().stream().filter(v -> v.name().equals(name)).findFirst();
    if (existing.isPresent()) {
      if (existing.get().bytes() < bytes) {
        throw new CsiException(
            CsiCall.CreateVolume, CsiCode.ALREADY_EXISTS, name + " exists with a smaller size");
      }
      return new CreatedVolume(existing.get().id(), existing.get().bytes(), Map.of());
    }
    var id = "vol-" + (volumes.size() + 1) + "-" + name;
    volumes.put(id, new Vol(id, name, bytes, new HashMap<>()));
    return new CreatedVolume(id, bytes, Map.of());
  }

  void delete(String id) {
    var v = volumes.get(id);
    if (v == null) {
      return;
    }
    if (!v.attachedTo().isEmpty()) {
      throw new CsiException(
          CsiCall.DeleteVolume,
          CsiCode.FAILED_PRECONDITION,
          id + " is attached to " + v.attachedTo().keySet());
    }
    volumes.remove(id);
  }

  Map<String, String> attach(String id, String node, AccessMode mode) {
    var v = volumes.get(id);
    if (v == null) {
      throw new CsiException(CsiCall.ControllerPublishVolume, CsiCode.NOT_FOUND, "no volume " + id);
    }
    if (v.attachedTo().containsKey(node)) {
      return Map.of("device", v.attachedTo().get(node));
    }
    boolean singleNode =
        mode == AccessMode.SingleNodeWriter || mode == AccessMode.SingleNodeReaderOnly;
    if (singleNode && !v.attachedTo().isEmpty()) {
      throw new CsiException(
          CsiCall.ControllerPublishVolume,
          CsiCode.FAILED_PRECONDITION,
          id + " is attached to " + v.attachedTo().keySet());
    }
    var used = new TreeSet<String>();
    volumes
        .values()
        .forEach(o -> Optional.ofNullable(o.attachedTo().get(node)).ifPresent(used::add));
    for (int i = 0; i < DEVICE_NAMES; i++) {
      var name = "/dev/xvd" + (char) ('b' + i);
      if (!used.contains(name)) {
        v.attachedTo().put(node, name);
        return Map.of("device", name);
      }
    }
    throw new CsiException(
        CsiCall.ControllerPublishVolume,
        CsiCode.RESOURCE_EXHAUSTED,
        node + " has no free device name");
  }

  /**
   * Detaching takes the device away from the node whatever still uses it there, as an EBS detach
   * does: its stagings and publications of the volume go too (a process that kept writing gets I/O
   * errors, not the new holder's data).
   */
  void detach(String id, String node) {
    var v = volumes.get(id);
    if (v != null) {
      v.attachedTo().remove(node);
    }
    if (detachEffect == DetachEffect.DropsNodeMounts) {
      staged.remove(node + "|" + id);
      published.remove(node + "|" + id);
    }
  }

  void stage(String id, String node, String path) {
    requireAttached(CsiCall.NodeStageVolume, id, node);
    staged.computeIfAbsent(node + "|" + id, k -> new TreeSet<>()).add(path);
  }

  /**
   * Refused while a target of the volume is still published on the node (its mount would be torn
   * from under it).
   */
  void unstage(String id, String node) {
    var still = published.get(node + "|" + id);
    if (still != null && !still.isEmpty()) {
      throw new CsiException(
          CsiCall.NodeUnstageVolume,
          CsiCode.FAILED_PRECONDITION,
          "volume " + id + " is still published at " + still.keySet());
    }
    staged.remove(node + "|" + id);
  }

  void publish(String id, String node, String target, boolean readOnly) {
    requireAttached(CsiCall.NodePublishVolume, id, node);
    published
        .computeIfAbsent(node + "|" + id, k -> new java.util.TreeMap<>())
        .put(target, readOnly);
  }

  void unpublish(String id, String node, String target) {
    var s = published.get(node + "|" + id);
    if (s != null) {
      s.remove(target);
      if (s.isEmpty()) {
        published.remove(node + "|" + id);
      }
    }
  }

  private void requireAttached(CsiCall call, String id, String node) {
    var v = volumes.get(id);
    if (v == null) {
      throw new CsiException(call, CsiCode.NOT_FOUND, "no volume " + id);
    }
    if (!v.attachedTo().containsKey(node)) {
      throw new CsiException(call, CsiCode.FAILED_PRECONDITION, id + " is not attached to " + node);
    }
  }

  /** Destructive controller calls that began while another was in flight. */
  public long overlaps() {
    return overlaps;
  }

  public long destructiveCalls() {
    return destructiveCalls;
  }

  /** Destructive calls in the order they started. */
  public List<Started> log() {
    return List.copyOf(log);
  }

  /** The nodes {@code id} is attached to. */
  public Set<String> attachedTo(String id) {
    var v = volumes.get(id);
    return v == null ? Set.of() : Set.copyOf(v.attachedTo().keySet());
  }

  /** Targets {@code id} is published to on {@code node}. */
  public Set<String> publishedOn(String node, String id) {
    return Set.copyOf(published.getOrDefault(node + "|" + id, Map.of()).keySet());
  }

  /** Every target published on {@code node}, of any volume. */
  public Set<String> publishedOn(String node) {
    var out = new TreeSet<String>();
    published.forEach(
        (k, targets) -> {
          if (k.startsWith(node + "|")) {
            out.addAll(targets.keySet());
          }
        });
    return out;
  }

  /** Every writable publication of {@code id}, as {@code node:target}. */
  public List<String> writers(String id) {
    var out = new ArrayList<String>();
    published.forEach(
        (k, targets) -> {
          var parts = k.split("\\|", 2);
          if (parts[1].equals(id)) {
            targets.forEach(
                (t, ro) -> {
                  if (!ro) {
                    out.add(parts[0] + ":" + t);
                  }
                });
          }
        });
    return out;
  }

  /** The plugin's id of the volume created under {@code name}, if any. */
  public Optional<String> idOf(String name) {
    return volumes.values().stream().filter(v -> v.name().equals(name)).map(Vol::id).findFirst();
  }

  public Set<String> volumeIds() {
    return Set.copyOf(volumes.keySet());
  }
}
