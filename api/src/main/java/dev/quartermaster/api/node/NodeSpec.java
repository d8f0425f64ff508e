package dev.quartermaster.api.node;

import java.util.Map;
import java.util.TreeMap;

/**
 * @param unschedulable no new allocations go to this node
 * @param fenced an operator declared the node dead (qm node fence): its claims may be re-allocated
 * @param mig the GPUs (by device name, e.g. {@code gpu-0}) the operator wants in MIG mode, and how;
 *     a GPU not named here or in {@code sharing} is used whole
 * @param sharing the GPUs the operator wants shared otherwise (time-sliced), and how; a GPU is in
 *     one mode, so none is named in both maps (validation says so)
 */
public record NodeSpec(
    boolean unschedulable,
    boolean fenced,
    Map<String, MigMode> mig,
    Map<String, GpuSharing> sharing) {
  public static final NodeSpec EMPTY = new NodeSpec(false, false);

  public NodeSpec {
    mig = mig == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(mig));
    sharing =
        sharing == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(sharing));
  }

  public NodeSpec(boolean unschedulable, boolean fenced, Map<String, MigMode> mig) {
    this(unschedulable, fenced, mig, Map.of());
  }

  public NodeSpec(boolean unschedulable, boolean fenced) {
    this(unschedulable, fenced, Map.of());
  }

  /** This spec, cordoned or not; the rest kept. */
  public NodeSpec withUnschedulable(boolean value) {
    return new NodeSpec(value, fenced, mig, sharing);
  }

  /** This spec, fenced or not; the rest kept. */
  public NodeSpec withFenced(boolean value) {
    return new NodeSpec(unschedulable, value, mig, sharing);
  }

  /** This spec with {@code gpu} in {@code mode}, or used whole where {@code mode} is empty. */
  public NodeSpec withMig(String gpu, java.util.Optional<MigMode> mode) {
    var next = new TreeMap<>(mig);
    mode.ifPresentOrElse(m -> next.put(gpu, m), () -> next.remove(gpu));
    return new NodeSpec(unschedulable, fenced, next, sharing);
  }

  /** This spec with {@code gpu} shared as {@code how}, or not shared where it is empty. */
  public NodeSpec withSharing(String gpu, java.util.Optional<GpuSharing> how) {
    var next = new TreeMap<>(sharing);
    how.ifPresentOrElse(m -> next.put(gpu, m), () -> next.remove(gpu));
    return new NodeSpec(unschedulable, fenced, mig, next);
  }
}
