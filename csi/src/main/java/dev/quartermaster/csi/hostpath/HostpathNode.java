package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.NodeInfo;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The node side of the hostpath plugin: stage and publish by bind mount where permitted, by
 * symbolic link otherwise ({@link Staging}).
 *
 * <ul>
 *   <li><b>Bind mounts</b> (chosen by {@link Staging#AUTO} when a probe bind mount under the state
 *       directory succeeds, i.e. with CAP_SYS_ADMIN): NodeStage binds the volume's directory onto
 *       the staging path, NodePublish binds the staging path onto the target and remounts it
 *       read-only for a read-only publication. This is what a workload's container runtime expects
 *       to find.
 *   <li><b>Links</b>, the fallback for an unprivileged plugin: NodeStage replaces the staging path
 *       (absent, or an empty directory the CO made) with a link to the volume's directory,
 *       NodePublish makes the target a link to the staging path. The tree seen at the target is the
 *       same, and nothing outlives the process; but read-only cannot be enforced through a link, so
 *       it is recorded in the node's state and said by a {@code <target>}{@value #READONLY_MARKER}
 *       file beside it.
 * </ul>
 *
 * <p>Unstage and unpublish undo whichever they find (a mount point or a link), so a restart with
 * the other method still cleans up. Staged volumes and published targets are written to {@code
 * node-<id>.json} before a call answers; that file also tells a controller sharing the state
 * directory that this node exists.
 */
public final class HostpathNode {

  /** Written as {@code <target>.readonly} for a read-only publication. */
  public static final String READONLY_MARKER = ".readonly";

  private final HostpathConfig config;
  private final StateFile<NodeState> file;
  private final ReentrantLock lock = new ReentrantLock();
  private final boolean bindMounts;
  private NodeState state;

  HostpathNode(HostpathConfig config) {
    this.config = config;
    this.bindMounts =
        switch (config.staging()) {
          case BIND_MOUNT -> true;
          case SYMLINK -> false;
          case AUTO -> Mounts.bindPermitted(config.stateDir());
        };
    this.file = new StateFile<>(config.nodeStateFile(config.nodeId()), NodeState.class);
    var loaded = file.load();
    this.state = loaded.orElse(NodeState.empty(config.nodeId()));
    if (loaded.isEmpty()) {
      // Registers the node with a controller on the same state directory.
      file.save(state);
    }
  }

  /** The method in use: {@link Staging#BIND_MOUNT} or {@link Staging#SYMLINK}. */
  public Staging method() {
    return bindMounts ? Staging.BIND_MOUNT : Staging.SYMLINK;
  }

  /** NodeGetInfo: the node id and how many volumes may be attached here (the device slots). */
  public NodeInfo info() {
    return new NodeInfo(config.nodeId(), config.deviceSlots());
  }

  /** NodeStageVolume. */
  public void stage(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      VolumeAccess access) {
    var call = CsiCall.NodeStageVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    var staging = Args.absolute(call, "staging_target_path", stagingPath);
    checkAccess(call, access);
    lock.lock();
    try {
      var volumeDir = config.volumesDir().resolve(volumeId);
      if (!Files.isDirectory(volumeDir)) {
        throw new CsiException(
            call, CsiCode.NOT_FOUND, "volume " + volumeId + " does not exist at " + volumeDir);
      }
      var existing = state.staged().get(volumeId);
      if (existing != null) {
        if (!existing.stagingPath().equals(staging.toString())) {
          throw new CsiException(
              call,
              CsiCode.FAILED_PRECONDITION,
              "volume " + volumeId + " is already staged at " + existing.stagingPath());
        }
        if (existing.mode() != access.mode()) {
          throw new CsiException(
              call,
              CsiCode.ALREADY_EXISTS,
              "volume "
                  + volumeId
                  + " is staged at "
                  + staging
                  + " as "
                  + existing.mode()
                  + ", not "
                  + access.mode());
        }
        place(call, staging, volumeDir, false); // repairs one removed behind our back
        return;
      }
      place(call, staging, volumeDir, false);
      var staged = new HashMap<>(state.staged());
      staged.put(volumeId, new StagedVolume(staging.toString(), access.mode()));
      commit(new NodeState(state.nodeId(), staged, state.published()));
    } finally {
      lock.unlock();
    }
  }

  /** NodeUnstageVolume: removes the staging link; a volume not staged is success. */
  public void unstage(String volumeId, String stagingPath) {
    var call = CsiCall.NodeUnstageVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    var staging = Args.absolute(call, "staging_target_path", stagingPath);
    lock.lock();
    try {
      var existing = state.staged().get(volumeId);
      if (existing != null && !existing.stagingPath().equals(staging.toString())) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume " + volumeId + " is staged at " + existing.stagingPath() + ", not " + staging);
      }
      for (var p : state.published().entrySet()) {
        if (p.getValue().volumeId().equals(volumeId)) {
          throw new CsiException(
              call,
              CsiCode.FAILED_PRECONDITION,
              "volume " + volumeId + " is still published at " + p.getKey());
        }
      }
      remove(call, staging);
      if (existing != null) {
        var staged = new HashMap<>(state.staged());
        staged.remove(volumeId);
        commit(new NodeState(state.nodeId(), staged, state.published()));
      }
    } finally {
      lock.unlock();
    }
  }

  /** NodePublishVolume: needs the volume staged at {@code stagingPath} first. */
  public void publish(
      String volumeId,
      Map<String, String> publishContext,
      String stagingPath,
      String targetPath,
      VolumeAccess access,
      boolean readOnly) {
    var call = CsiCall.NodePublishVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    // Required because this plugin advertises STAGE_UNSTAGE_VOLUME.
    var staging = Args.absolute(call, "staging_target_path", stagingPath);
    var target = Args.absolute(call, "target_path", targetPath);
    checkAccess(call, access);
    lock.lock();
    try {
      var staged = state.staged().get(volumeId);
      if (staged == null) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume "
                + volumeId
                + " is not staged on node "
                + config.nodeId()
                + "; NodeStageVolume comes first");
      }
      if (!staged.stagingPath().equals(staging.toString())) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume "
                + volumeId
                + " is staged at "
                + staged.stagingPath()
                + ", not at staging_target_path "
                + staging);
      }
      if (staged.mode() != access.mode()) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "volume " + volumeId + " was staged as " + staged.mode() + ", not " + access.mode());
      }
      var existing = state.published().get(target.toString());
      if (existing != null) {
        if (!existing.volumeId().equals(volumeId) || existing.readOnly() != readOnly) {
          throw new CsiException(
              call,
              CsiCode.ALREADY_EXISTS,
              "target "
                  + target
                  + " already has volume "
                  + existing.volumeId()
                  + " with readonly="
                  + existing.readOnly());
        }
        place(call, target, staging, existing.readOnly());
        return;
      }
      boolean effectiveReadOnly =
          readOnly
              || access.mode() == AccessMode.SingleNodeReaderOnly
              || access.mode() == AccessMode.MultiNodeReaderOnly;
      place(call, target, staging, effectiveReadOnly);
      marker(call, target, effectiveReadOnly && !bindMounts);
      var published = new HashMap<>(state.published());
      published.put(
          target.toString(), new PublishedTarget(volumeId, staging.toString(), effectiveReadOnly));
      commit(new NodeState(state.nodeId(), state.staged(), published));
    } finally {
      lock.unlock();
    }
  }

  /** NodeUnpublishVolume: removes the target; one not published is success. */
  public void unpublish(String volumeId, String targetPath) {
    var call = CsiCall.NodeUnpublishVolume;
    Args.pathSafe(call, "volume_id", volumeId);
    var target = Args.absolute(call, "target_path", targetPath);
    lock.lock();
    try {
      var existing = state.published().get(target.toString());
      if (existing != null && !existing.volumeId().equals(volumeId)) {
        throw new CsiException(
            call,
            CsiCode.FAILED_PRECONDITION,
            "target " + target + " holds volume " + existing.volumeId() + ", not " + volumeId);
      }
      remove(call, target);
      marker(call, target, false);
      if (existing != null) {
        var published = new HashMap<>(state.published());
        published.remove(target.toString());
        commit(new NodeState(state.nodeId(), state.staged(), published));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether the target is published read-only, as recorded (links cannot enforce it). */
  public boolean readOnly(String targetPath) {
    lock.lock();
    try {
      var p = state.published().get(Path.of(targetPath).normalize().toString());
      return p != null && p.readOnly();
    } finally {
      lock.unlock();
    }
  }

  private static void checkAccess(CsiCall call, VolumeAccess access) {
    if (access.block()) {
      throw Args.invalid(call, "block access is not supported: hostpath volumes are directories");
    }
    if (!HostpathController.SUPPORTED_MODES.contains(access.mode())) {
      throw new CsiException(
          call,
          CsiCode.FAILED_PRECONDITION,
          "access mode " + access.mode() + " exceeds this plugin's capabilities");
    }
  }

  /** Makes {@code source}'s tree appear at {@code at}, by the node's method; idempotent. */
  private void place(CsiCall call, Path at, Path source, boolean readOnly) {
    if (!bindMounts) {
      link(call, at, source);
      return;
    }
    if (Mounts.isMountPoint(at)) {
      return;
    }
    try {
      if (Files.isSymbolicLink(at)) {
        Files.delete(at); // left by a run that used links
      }
      if (Files.exists(at, LinkOption.NOFOLLOW_LINKS)
          && !Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
        throw new CsiException(
            call, CsiCode.FAILED_PRECONDITION, at + " exists and is not a directory");
      }
      Files.createDirectories(at);
      Mounts.bind(source, at);
    } catch (IOException e) {
      throw new CsiException(
          call, CsiCode.INTERNAL, "cannot bind " + source + " onto " + at + ": " + e.getMessage());
    }
    if (readOnly) {
      try {
        Mounts.remountReadOnly(at);
      } catch (IOException e) {
        try {
          Mounts.unmount(at); // never leave a writable mount where read-only was asked for
        } catch (IOException ignored) {
          // reported below; the CO retries
        }
        throw new CsiException(
            call, CsiCode.INTERNAL, "cannot make " + at + " read-only: " + e.getMessage());
      }
    }
  }

  /**
   * Undoes {@link #place}, whichever method made it: unmounts a mount point, removes a link or
   * empty directory.
   */
  private static void remove(CsiCall call, Path at) {
    if (Mounts.isMountPoint(at)) {
      try {
        Mounts.unmount(at);
      } catch (IOException e) {
        throw new CsiException(
            call, CsiCode.INTERNAL, "cannot unmount " + at + ": " + e.getMessage());
      }
    }
    unlink(call, at);
  }

  /** Makes {@code at} a link to {@code to}, replacing an empty directory or a stale link there. */
  private static void link(CsiCall call, Path at, Path to) {
    try {
      if (Files.isSymbolicLink(at)) {
        if (Files.readSymbolicLink(at).equals(to)) {
          return;
        }
        Files.delete(at);
      } else if (Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(at); // only if empty: a CO-made mount point
      } else if (Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
        throw new CsiException(
            call, CsiCode.FAILED_PRECONDITION, at + " exists and is not a directory");
      }
      Files.createDirectories(at.getParent());
      Files.createSymbolicLink(at, to);
    } catch (DirectoryNotEmptyException e) {
      throw new CsiException(
          call, CsiCode.FAILED_PRECONDITION, at + " is a directory that is not empty");
    } catch (IOException e) {
      throw new CsiException(call, CsiCode.INTERNAL, "cannot link " + at + " to " + to + ": " + e);
    }
  }

  private static void unlink(CsiCall call, Path at) {
    try {
      if (Files.isSymbolicLink(at)) {
        Files.delete(at);
      } else if (Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(at);
      }
    } catch (DirectoryNotEmptyException e) {
      throw new CsiException(
          call, CsiCode.FAILED_PRECONDITION, at + " is a directory that is not empty");
    } catch (IOException e) {
      throw new CsiException(call, CsiCode.INTERNAL, "cannot remove " + at + ": " + e);
    }
  }

  private static void marker(CsiCall call, Path target, boolean present) {
    var marker = target.resolveSibling(target.getFileName() + READONLY_MARKER);
    try {
      if (present) {
        Files.writeString(marker, "readonly\n");
      } else {
        Files.deleteIfExists(marker);
      }
    } catch (IOException e) {
      throw new CsiException(call, CsiCode.INTERNAL, "cannot write " + marker + ": " + e);
    }
  }

  private void commit(NodeState next) {
    file.save(next);
    state = next;
  }
}
