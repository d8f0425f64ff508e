package dev.quartermaster.agent.cdi;

import dev.quartermaster.api.device.mps.MpsShare;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The environment that tells a container which Quartermaster devices it was given: the contract
 * that README.md documents. A container is told exactly what it was given, whatever mix of claims
 * and devices it gets.
 *
 * <p>CDI cannot compose a value: a spec's common {@code env} applies whenever any of its devices is
 * asked for, and when two edits set one key the last one wins. So a claim's uid or GPU list at spec
 * level is wrong as soon as a container gets devices of two claims (one claim's value survives) or
 * only some devices of a claim (it lists them all). Hence two layers:
 *
 * <ul>
 *   <li><b>Per device, in the CDI spec</b> (each device's own {@code containerEdits.env}; the keys
 *       are unique on a node, so any set of devices composes, in any runtime that applies CDI):
 *       <br>
 *       {@code QUARTERMASTER_GPU_<index>_UUID=<uuid>} and {@code
 *       QUARTERMASTER_GPU_<index>_CLAIM_UID=<claim uid>} for GPU {@code gpu-<index>}; <br>
 *       {@code QUARTERMASTER_IMEX_CHANNEL_<id>_CLAIM_UID=<claim uid>} for channel {@code
 *       channel-<id>}.
 *   <li><b>Composed by Quartermaster's runtimes</b> (podman passes them as {@code --env}, exec sets
 *       them), from exactly the devices they inject, in the task's order ({@link #composed}): <br>
 *       {@code QUARTERMASTER_GPU_UUIDS}, {@code CUDA_VISIBLE_DEVICES}: the GPUs' UUIDs,
 *       comma-separated (empty when none); {@code NVIDIA_VISIBLE_DEVICES}: the same, or {@code
 *       void} when none (so an image's {@code all} never reaches a container runtime hook); <br>
 *       {@code QUARTERMASTER_IMEX_CHANNELS}: the channel ids, comma-separated; <br>
 *       {@code QUARTERMASTER_CLAIM_UIDS}: every claim that gave a device, once, comma-separated;
 *       {@code QUARTERMASTER_CLAIM_UID}: that claim, only when there is exactly one.
 * </ul>
 *
 * The composed values are derived from the per-device entries of the specs injected, so they can
 * say nothing the specs do not. They come after the task's own environment and before CDI's edits,
 * which a runtime applies last. A task with no Quartermaster device gets none of them.
 */
public final class DeviceVariables {
  public static final String GPU_UUIDS = "QUARTERMASTER_GPU_UUIDS";
  public static final String IMEX_CHANNELS = "QUARTERMASTER_IMEX_CHANNELS";
  public static final String CLAIM_UIDS = "QUARTERMASTER_CLAIM_UIDS";
  public static final String CLAIM_UID = "QUARTERMASTER_CLAIM_UID";
  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  public static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

  // A whole GPU's key is its index; a MIG slice's its parent's index and its start position (no
  // two live slices of one GPU share a start); a time-sliced replica's its parent's index and its
  // number; an MPS share's its parent's index and its size and number: so each device's keys stay
  // its own.
  private static final Pattern GPU_UUID =
      Pattern.compile(
          "QUARTERMASTER_GPU_([0-9]+(?:_(?:MIG|TS)_[0-9]+|_MPS_[0-9]+PCT_[0-9]+GIB_[0-9]+)?)_UUID=(.*)");
  private static final Pattern GPU_CLAIM =
      Pattern.compile(
          "QUARTERMASTER_GPU_([0-9]+(?:_(?:MIG|TS)_[0-9]+|_MPS_[0-9]+PCT_[0-9]+GIB_[0-9]+)?)_CLAIM_UID=(.*)");
  private static final Pattern CHANNEL_CLAIM =
      Pattern.compile("QUARTERMASTER_IMEX_CHANNEL_([0-9]+)_CLAIM_UID=(.*)");

  private DeviceVariables() {}

  /** {@code QUARTERMASTER_GPU_<index>_UUID=<uuid>}: GPU {@code gpu-<index>}'s own entry. */
  public static String gpuUuid(int index, String uuid) {
    return "QUARTERMASTER_GPU_" + index + "_UUID=" + uuid;
  }

  /**
   * {@code QUARTERMASTER_GPU_<index>_CLAIM_UID=<claim uid>}: which claim gave GPU {@code
   * gpu-<index>}.
   */
  public static String gpuClaimUid(int index, String claimUid) {
    return "QUARTERMASTER_GPU_" + index + "_CLAIM_UID=" + claimUid;
  }

  /**
   * {@code QUARTERMASTER_GPU_<gpu>_MIG_<start>_UUID=MIG-...}: a MIG slice's own entry; its UUID
   * goes into {@code NVIDIA_VISIBLE_DEVICES} and {@code CUDA_VISIBLE_DEVICES} like a GPU's.
   */
  public static String sliceUuid(int gpu, int start, String uuid) {
    return "QUARTERMASTER_GPU_" + gpu + "_MIG_" + start + "_UUID=" + uuid;
  }

  /** {@code QUARTERMASTER_GPU_<gpu>_MIG_<start>_CLAIM_UID=<claim uid>}. */
  public static String sliceClaimUid(int gpu, int start, String claimUid) {
    return "QUARTERMASTER_GPU_" + gpu + "_MIG_" + start + "_CLAIM_UID=" + claimUid;
  }

  /**
   * {@code QUARTERMASTER_GPU_<gpu>_TS_<replica>_UUID=GPU-...}: a time-sliced replica's own entry,
   * with its GPU's UUID (a client of a replica sees the whole GPU).
   */
  public static String replicaUuid(int gpu, int replica, String uuid) {
    return "QUARTERMASTER_GPU_" + gpu + "_TS_" + replica + "_UUID=" + uuid;
  }

  /** {@code QUARTERMASTER_GPU_<gpu>_TS_<replica>_CLAIM_UID=<claim uid>}. */
  public static String replicaClaimUid(int gpu, int replica, String claimUid) {
    return "QUARTERMASTER_GPU_" + gpu + "_TS_" + replica + "_CLAIM_UID=" + claimUid;
  }

  /**
   * {@code QUARTERMASTER_GPU_<gpu>_MPS_<pct>PCT_<gib>GIB_<n>_UUID=GPU-...}: an MPS share's own
   * entry, with its GPU's UUID (a client of a share runs on the GPU through its MPS daemon).
   */
  public static String shareUuid(int gpu, MpsShare share, String uuid) {
    return "QUARTERMASTER_GPU_" + gpu + shareKey(share) + "_UUID=" + uuid;
  }

  /** {@code QUARTERMASTER_GPU_<gpu>_MPS_<pct>PCT_<gib>GIB_<n>_CLAIM_UID=<claim uid>}. */
  public static String shareClaimUid(int gpu, MpsShare share, String claimUid) {
    return "QUARTERMASTER_GPU_" + gpu + shareKey(share) + "_CLAIM_UID=" + claimUid;
  }

  private static String shareKey(MpsShare share) {
    return "_MPS_" + share.computePercent() + "PCT_" + share.memoryGiB() + "GIB_" + share.index();
  }

  /**
   * {@code QUARTERMASTER_IMEX_CHANNEL_<id>_CLAIM_UID=<claim uid>}: which claim gave channel {@code
   * channel-<id>}.
   */
  public static String channelClaimUid(int id, String claimUid) {
    return "QUARTERMASTER_IMEX_CHANNEL_" + id + "_CLAIM_UID=" + claimUid;
  }

  /**
   * The composed entries ({@code K=V}) for a container given the devices whose merged CDI
   * environment, in injection order, is {@code deviceEnv} ({@link ContainerEdits#env}); empty when
   * none of them is a Quartermaster device.
   */
  public static List<String> composed(List<String> deviceEnv) {
    var uuids = new LinkedHashSet<String>(); // two replicas of one GPU are that GPU once
    var channels = new ArrayList<String>();
    var claims = new LinkedHashSet<String>();
    for (var entry : deviceEnv) {
      var gpu = GPU_UUID.matcher(entry);
      var gpuClaim = GPU_CLAIM.matcher(entry);
      var channelClaim = CHANNEL_CLAIM.matcher(entry);
      if (gpu.matches()) {
        uuids.add(gpu.group(2));
      } else if (gpuClaim.matches()) {
        claims.add(gpuClaim.group(2));
      } else if (channelClaim.matches()) {
        channels.add(channelClaim.group(1));
        claims.add(channelClaim.group(2));
      }
    }
    if (claims.isEmpty()) {
      return List.of();
    }
    var gpus = String.join(",", uuids);
    var out = new ArrayList<String>();
    out.add(GPU_UUIDS + "=" + gpus);
    out.add(NVIDIA_VISIBLE_DEVICES + "=" + (uuids.isEmpty() ? "void" : gpus));
    out.add(CUDA_VISIBLE_DEVICES + "=" + gpus);
    out.add(IMEX_CHANNELS + "=" + String.join(",", channels));
    out.add(CLAIM_UIDS + "=" + String.join(",", claims));
    if (claims.size() == 1) {
      out.add(CLAIM_UID + "=" + claims.getFirst());
    }
    return List.copyOf(out);
  }
}
