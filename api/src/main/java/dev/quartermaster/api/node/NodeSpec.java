package dev.quartermaster.api.node;

import java.util.Map;
import java.util.TreeMap;

/**
 * @param unschedulable no new allocations go to this node
 * @param fenced an operator declared the node dead (qm node fence): its claims may be re-allocated
 * @param mig the GPUs (by device name, e.g. {@code gpu-0}) the operator wants in MIG mode, and how;
 *     a GPU not named is used whole
 */
public record NodeSpec(boolean unschedulable, boolean fenced, Map<String, MigMode> mig) {
  public static final NodeSpec EMPTY = new NodeSpec(false, false);

  public NodeSpec {
    mig = mig == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(mig));
  }

  public NodeSpec(boolean unschedulable, boolean fenced) {
    this(unschedulable, fenced, Map.of());
  }

  /** This spec, cordoned or not; the rest kept. */
  public NodeSpec withUnschedulable(boolean value) {
    return new NodeSpec(value, fenced, mig);
  }

  /** This spec, fenced or not; the rest kept. */
  public NodeSpec withFenced(boolean value) {
    return new NodeSpec(unschedulable, value, mig);
  }

  /** This spec with {@code gpu} in {@code mode}, or used whole where {@code mode} is empty. */
  public NodeSpec withMig(String gpu, java.util.Optional<MigMode> mode) {
    var next = new TreeMap<>(mig);
    mode.ifPresentOrElse(m -> next.put(gpu, m), () -> next.remove(gpu));
    return new NodeSpec(unschedulable, fenced, next);
  }
}
